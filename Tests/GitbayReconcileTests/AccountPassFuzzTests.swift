import Foundation
import TestSupport
import Testing

@testable import GitbayAPI
@testable import GitbayReconcile
@testable import GitbayState
@testable import GitbaySupport

/// The pass fed random events, each one a step may legally get (any answer, any failure, any
/// store result), from random first conditions: after every step the invariants below hold, and
/// every pass ends. `GITBAY_SYNC_PASS_SEED` replays a seed; `GITBAY_SYNC_PASS_CASES` runs more.
@Suite("Account pass, fuzzed")
struct AccountPassFuzzTests {
    static let seed = SplitMix64.seed(from: "GITBAY_SYNC_PASS_SEED")
    static let cases = SplitMix64.count(from: "GITBAY_SYNC_PASS_CASES", default: 3000)
    /// More steps than any pass takes: three passes of a few operations each.
    static let stepLimit = 400

    /// Every (phase, event) pair the pass accepts: the fuzzing must have fed each at least once.
    /// (The list confirming writes is unconditional: a `304` to it is a malformed answer, which
    /// the client fails, and the pass never gets it.)
    static let accepted: Set<String> = [
        "listing listed", "listing not modified", "listing no client", "listing failed",
        "proving doubt", "proving failed", "recording proof proven", "recording proof failed",
        "leasing taken", "leasing already held", "leasing held elsewhere", "leasing records changed", "leasing gone", "leasing failed",
        "acting still wanted", "acting no longer wanted", "acting added", "acting removed", "acting stored", "acting failed",
        "finding listed", "finding failed", "confirming listed", "confirming failed",
        "saving saved", "saving superseded", "saving failed", "giving back lease given back",
        "reading afresh fresh", "reading afresh signed out", "reading afresh failed",
    ]

    @Test("random legal events: the invariants hold after each step, every pass ends, every accepted pair is fed")
    func randomEvents() throws {
        var random = SplitMix64(seed: Self.seed)
        var fed: Set<String> = []
        // Past `cases`, only while a pair is still unfed: a rare pair (a v1.32.0 add's finding
        // list failing) can be missed by 3000 cases of some seeds, never by ten times as many.
        for index in 0..<(Self.cases * 10) where index < Self.cases || fed != Self.accepted {
            let caseSeed = random.next()
            var generator = SplitMix64(seed: caseSeed)
            if let violation = Self.violation(&generator, fed: &fed) {
                Issue.record("case seed \(caseSeed) (from GITBAY_SYNC_PASS_SEED=\(Self.seed)): \(violation)")
                return
            }
        }
        let (unfed, unknown) = (Self.accepted.subtracting(fed).sorted(), fed.subtracting(Self.accepted).sorted())
        #expect(fed == Self.accepted, "never fed: \(unfed); not in the table: \(unknown) (GITBAY_SYNC_PASS_SEED=\(Self.seed))")
    }

    /// Runs one pass to its end, noting the (phase, event) pairs fed; the first broken
    /// invariant, if any.
    static func violation(_ random: inout SplitMix64, fed: inout Set<String>) -> String? {
        let desire: Desire = [.hold, .hold, .release, .shadowed(by: "bob@gitbay.example")].randomElement(using: &random)!
        let records = [7, 8].filter { _ in Bool.random(using: &random) }
        var status = AccountStatusRecord()
        if Bool.random(using: &random) {
            // A tag remembered for these records: the pass sends it.
            let probe = AccountPassCase(name: "fuzzed", desire: desire, records: records, first: "", exchanges: []).pass
            (status.listETag, status.etagBasis) = ("\"e1\"", probe.decision.tagBasis(records: probe.records))
        }
        var pass = AccountPassCase(name: "fuzzed", desire: desire, records: records, status: status, first: "", exchanges: []).pass
        // Each event comes up to 5 s after the one before: the times the pass records are the
        // ones its events came with.
        var now = AccountPassCase.now
        var watch = PassWatch(passBegan: now)
        var step = pass.begin(at: now)
        var transcript = [AccountPassCase.describe(step)]
        for _ in 0..<stepLimit {
            if let broken = watch.check(step, at: now) { return "\(broken), after \(transcript.joined(separator: " → "))" }
            if case .finish = step { return nil }
            let event = Self.event(answering: step, firstList: Self.name(pass.phase) == "listing", &random)
            fed.insert("\(Self.name(pass.phase)) \(Self.kind(event))")
            watch.saw(event)
            now += Double(Int.random(in: 0..<5, using: &random))
            if case .fresh(_?) = event { watch.passBegan = now }
            step = pass.handle(event, at: now)
            transcript.append("[\(Self.name(event))] \(AccountPassCase.describe(step))")
        }
        return "no end after \(stepLimit) steps: \(transcript.suffix(12).joined(separator: " → "))"
    }

    /// An event `step` may legally get; `firstList`: the pass's first list, the only request a
    /// pass without a client is asked to send.
    static func event(answering step: AccountPass.Step, firstList: Bool, _ random: inout SplitMix64) -> AccountPass.Event {
        // One step in eight fails: a request as a server or a stop makes it, a store step as a
        // disk does.
        if Int.random(in: 0..<8, using: &random) == 0, step.canFail {
            guard step.isRequest else { return .failed(AccountFailure(StoreFailure())) }
            let kinds: [GitbayError.Kind] = [.transport(.timedOut(.request, limit: .seconds(30))), .authFailed, .transport(.cancelled)]
            return .failed(.server(GitbayError(kind: kinds.randomElement(using: &random)!, account: "ann@gitbay.example", command: [])))
        }
        switch step {
        case .list(let tag):
            if firstList, Int.random(in: 0..<40, using: &random) == 0 {
                let noToken = "no API token is stored for it"
                return .noClient(.server(GitbayError(kind: .authFailed, account: "ann@gitbay.example", command: [], serverMessage: noToken)))
            }
            if tag != nil, Bool.random(using: &random) { return .notModified }
            return .listed(Self.rows(&random), etag: Bool.random(using: &random) ? "\"e\(Int.random(in: 2...4, using: &random))\"" : nil)
        case .takeLease:
            let holder = LeaseRecord(accountID: 1, holderPID: 4242, holderID: "other", takenAt: AccountPassCase.now, expiresAt: .distantFuture)
            let takings: [LeaseTaking] = [.taken, .taken, .taken, .alreadyHeld, .heldElsewhere(holder), .recordsChanged, .gone]
            return .lease(takings.randomElement(using: &random)!)
        case .checkStillWanted: return .stillWanted(Int.random(in: 0..<6, using: &random) != 0)
        case .add: return .added(id: [7, 8, 9, 10, nil].randomElement(using: &random)!)
        case .remove: return .removed
        case .record, .forget: return .stored
        case .readDoubt:
            return .doubt(
                Bool.random(using: &random)
                    ? RowDoubt(since: AccountPassCase.now, instance: "https://other.example", deviceID: 7, added: AccountPassCase.added) : nil)
        case .recordSameServer: return .proven(Bool.random(using: &random))
        case .save: return .saved(Int.random(in: 0..<6, using: &random) != 0)
        case .giveBackLease: return .leaseGivenBack
        case .readAfresh:
            guard Int.random(in: 0..<5, using: &random) != 0 else { return .fresh(nil) }
            let records = [7, 8].filter { _ in Bool.random(using: &random) }.map(AccountPassCase.record)
            return .fresh(
                AccountPass.Fresh(
                    account: AccountPassCase.account(), snapshot: DesireSnapshot(desire: .hold, generation: 1, label: "laptop"),
                    device: AccountPassCase.device, status: AccountStatusRecord(), records: records))
        case .finish: preconditionFailure("a finished pass gets no event")
        }
    }

    /// Rows 7 to 9, each absent, showing this device's token, or another device's.
    static func rows(_ random: inout SplitMix64) -> [ServerDevice] {
        let other = TokenIdentity(of: Secret("0123456789abcdef0123")).shown
        return [7, 8, 9].compactMap { id in
            switch Int.random(in: 0..<3, using: &random) {
            case 0: nil
            case 1: AccountPassCase.row(id)
            default: ServerDevice(id: id, label: "phone", token: other, added: AccountPassCase.added)
            }
        }
    }

    /// The phase, as the table names it.
    static func name(_ phase: AccountPass.Phase) -> String {
        switch phase {
        case .listing: "listing"
        case .leasing: "leasing"
        case .proving(_, let recording): recording ? "recording proof" : "proving"
        case .acting: "acting"
        case .finding: "finding"
        case .confirming: "confirming"
        case .saving: "saving"
        case .givingBack: "giving back"
        case .readingAfresh: "reading afresh"
        case .done: "done"
        }
    }

    /// The event's kind, as the table names it.
    static func kind(_ event: AccountPass.Event) -> String {
        switch event {
        case .listed: "listed"
        case .notModified: "not modified"
        case .noClient: "no client"
        case .failed: "failed"
        case .doubt: "doubt"
        case .proven: "proven"
        case .lease(.taken): "taken"
        case .lease(.alreadyHeld): "already held"
        case .lease(.heldElsewhere): "held elsewhere"
        case .lease(.recordsChanged): "records changed"
        case .lease(.gone): "gone"
        case .stillWanted(let wanted): wanted ? "still wanted" : "no longer wanted"
        case .added: "added"
        case .removed: "removed"
        case .stored: "stored"
        case .saved(let saved): saved ? "saved" : "superseded"
        case .leaseGivenBack: "lease given back"
        case .fresh(let fresh): fresh == nil ? "signed out" : "fresh"
        }
    }

    static func name(_ event: AccountPass.Event) -> String {
        switch event {
        case .failed(let failure): "failed \(failure.server?.kind.logName ?? "\(failure)")"
        case .listed(let rows, let etag): "listed \(rows.map(\.id)) \(etag ?? "-")"
        default: "\(event)"
        }
    }
}

private struct StoreFailure: Error {}

extension AccountPass.Step {
    var isRequest: Bool {
        switch self {
        case .list, .add, .remove: true
        default: false
        }
    }

    /// Whether the step can fail: every request and store step but giving the lease back.
    var canFail: Bool {
        switch self {
        case .giveBackLease, .finish: false
        default: true
        }
    }
}

/// What a pass has done so far, and the rules every step must keep.
struct PassWatch {
    /// The lease as the events gave it: taken by this pass, held already, or not held.
    var leaseTaken = false
    var leaseHeld = false
    /// The last event answered a check that what the pass plans for is still wanted.
    var checkedStillWanted = false
    /// A write went through or is planned: nothing may be called steady after.
    var wroteSinceFresh = false
    /// The pass learnt that what it planned for is no longer wanted; only giving the lease back,
    /// reading afresh or the end may follow.
    var superseded = false
    var cancelled = false
    var freshReads = 0
    /// When the pass in progress began: its attempt, as its verdict records it.
    var passBegan: Date

    mutating func saw(_ event: AccountPass.Event) {
        checkedStillWanted = false
        switch event {
        case .lease(.taken): (leaseTaken, leaseHeld) = (true, true)
        case .lease(.alreadyHeld): leaseHeld = true
        case .lease(.recordsChanged), .lease(.gone), .stillWanted(false), .saved(false): superseded = true
        case .stillWanted(true): checkedStillWanted = true
        case .leaseGivenBack: (leaseTaken, leaseHeld) = (false, false)
        case .fresh(let fresh):
            freshReads += 1
            (superseded, wroteSinceFresh, leaseHeld) = (false, false, false)
            if fresh == nil { superseded = true }
        case .failed(let failure): cancelled = cancelled || failure.isStop
        default: break
        }
    }

    /// The rule `step` breaks, if any.
    mutating func check(_ step: AccountPass.Step, at now: Date) -> String? {
        switch step {
        case .record(let record) where record.madeAt != now: return "a record made at \(record.madeAt), not at its event's \(now)"
        case .recordSameServer(let proof) where proof.provenAt != now: return "a proof made at \(proof.provenAt), not at \(now)"
        case .save(let status, _) where status.lastAttemptAt != passBegan:
            return "an attempt recorded at \(status.lastAttemptAt.map { "\($0)" } ?? "none"), not when the pass began, \(passBegan)"
        default: break
        }
        switch step {
        case .add, .remove:
            wroteSinceFresh = true
            if !leaseHeld { return "a write to the server without the lease" }
            if !checkedStillWanted { return "a write to the server not right after a still-wanted check" }
        case .record, .forget:
            wroteSinceFresh = true
            if !leaseHeld { return "a record changed without the lease" }
        default: break
        }
        if superseded {
            switch step {
            case .giveBackLease, .readAfresh, .finish: break
            default: return "\(AccountPassCase.describe(step)) after the pass was superseded"
            }
        }
        if cancelled {
            switch step {
            case .list, .add, .remove, .readAfresh: return "\(AccountPassCase.describe(step)) after a stop"
            default: break
            }
        }
        if case .readAfresh = step, freshReads >= AccountPass.maximumPasses { return "a fourth pass" }
        if case .finish(let result) = step {
            if leaseTaken { return "finished holding the lease it took" }
            if result.steady != nil, wroteSinceFresh { return "called steady after a write" }
            if cancelled, !result.outcome.stopped, result.outcome.action == .failed { return "a stop that ended not as a stop" }
        }
        return nil
    }
}
