import Foundation
import Testing

@testable import GitbayAPI
@testable import GitbayReconcile
@testable import GitbayState
@testable import GitbaySupport

/// One row of the transcript table: what the driver saw, and the step the pass asks for next,
/// written as `AccountPassCase.describe` prints it.
struct PassExchange: Sendable {
    let event: AccountPass.Event
    let next: String

    init(_ event: AccountPass.Event, _ next: String) {
        self.event = event
        self.next = next
    }
}

/// An account's pass from its first step to its end, with no server or store: the events fed
/// in, the steps expected out.
struct AccountPassCase: Sendable, CustomTestStringConvertible {
    let name: String
    var desire: Desire = .hold
    var state = AccountState.active
    var records: [Int] = []
    var status = AccountStatusRecord()
    /// The first step, from what the run read.
    let first: String
    let exchanges: [PassExchange]

    var testDescription: String { name }

    static let now = Date(timeIntervalSince1970: 1_790_000_000)
    static let token = Secret("c0ffee00aaaabbbbccccdddd")
    static let added = "2026-09-20T14:03:07.123Z"
    static func account(_ state: AccountState = .active) -> AccountRecord {
        AccountRecord(
            id: 1, instance: try! InstanceURL(parsing: "https://gitbay.example"), username: "ann", name: "ann@gitbay.example", state: state,
            signedInAt: now)
    }
    static let device = DeviceRecord(
        token: token, generation: 1, label: "laptop", installMarker: "gbs-abc123", tokenSetAt: now, history: [])

    /// How the server lists row `id` of this device's current token.
    static func row(_ id: Int) -> ServerDevice {
        ServerDevice(id: id, label: device.serverLabel, token: TokenIdentity(of: token).shown, added: added)
    }

    static func record(_ id: Int) -> RegistrationRecord {
        RegistrationRecord(accountID: 1, deviceID: id, added: added, token: TokenIdentity(of: token), generation: 1, madeAt: now)
    }

    var pass: AccountPass {
        AccountPass(
            account: Self.account(state), desire: desire, device: Self.device, status: status, records: records.map(Self.record),
            settings: AccountPass.Settings(backoffCeiling: .seconds(3600)))
    }

    /// A step as the table writes it: its kind, and the one detail each kind is checked by.
    static func describe(_ step: AccountPass.Step) -> String {
        switch step {
        case .list(let tag): tag.map { "list if-none-match \($0)" } ?? "list"
        case .takeLease: "take lease"
        case .checkStillWanted: "check still wanted"
        case .add: "add"
        case .remove(let id, let reason): "remove \(id) (\(reason.rawValue))"
        case .record(let record): "record \(record.deviceID)"
        case .forget(let id, let reason): "forget \(id) (\(reason.rawValue))"
        case .readDoubt: "read doubt"
        case .recordSameServer(let proof): "record one server \(proof.instance.host) \(proof.other.host) (\(proof.deviceID))"
        case .save(let status, _):
            "save \(status.condition.rawValue)" + (status.failures > 0 ? " after \(status.failures) failure" : "")
                + (status.listETag.map { ", tag \($0)" } ?? "")
        case .giveBackLease: "give back lease"
        case .readAfresh: "read afresh"
        case .finish(let result):
            "finish \(result.outcome.action.rawValue) \(result.outcome.condition.rawValue), \(result.outcome.writes) writes"
                + (result.steady == nil ? "" : ", steady")
        }
    }
}

private struct Refused: Error {}

private func fresh(_ desire: Desire?) -> AccountPass.Fresh? {
    AccountPass.Fresh(
        account: AccountPassCase.account(), snapshot: DesireSnapshot(desire: desire, generation: 1, label: "laptop"),
        device: AccountPassCase.device, status: AccountStatusRecord(), records: [])
}

/// A doubt left by a record of row `row` (same `added`) under another instance URL.
private func doubt(row: Int) -> RowDoubt {
    RowDoubt(since: AccountPassCase.now, instance: "https://other.example", deviceID: row, added: AccountPassCase.added)
}

private func freshRecording(_ id: Int) -> AccountPass.Fresh? {
    AccountPass.Fresh(
        account: AccountPassCase.account(), snapshot: DesireSnapshot(desire: .hold, generation: 1, label: "laptop"),
        device: AccountPassCase.device, status: AccountStatusRecord(), records: [AccountPassCase.record(id)])
}

/// The verdict of a registered account whose list tag vouches for `records`.
private func remembered(_ records: [Int]) -> AccountStatusRecord {
    let probe = AccountPassCase(name: "", records: records, first: "", exchanges: []).pass
    var status = AccountStatusRecord()
    (status.condition, status.listETag, status.etagBasis) = (.registered, "\"e1\"", probe.decision.tagBasis(records: probe.records))
    return status
}

/// A store step that failed (the database locked, say).
private let storeFailed = AccountFailure.local(.other("the database is locked"))
private let rejected = GitbayError(kind: .serverFailure, account: "ann@gitbay.example", command: ["notifications", "device", "add"])

private let heldElsewhere = LeaseRecord(accountID: 1, holderPID: 4242, holderID: "other", takenAt: AccountPassCase.now, expiresAt: .distantFuture)
private let stopped = GitbayError(kind: .transport(.cancelled), account: "ann@gitbay.example", command: ["notifications", "device", "list"])
private let timedOut = GitbayError(
    kind: .transport(.timedOut(.request, limit: .seconds(30))), account: "ann@gitbay.example", command: ["notifications", "device", "list"])

private let passCases: [AccountPassCase] = [
    AccountPassCase(
        name: "the row recorded and listed: nothing written, no lease, a steady verdict", records: [7], first: "list",
        exchanges: [PassExchange(.listed([AccountPassCase.row(7)], etag: nil), "finish unchanged registered, 0 writes, steady")]),
    AccountPassCase(
        name: "a first add answered with its id: recorded, its tag from a fresh list", first: "list",
        exchanges: [
            PassExchange(.listed([], etag: "\"e0\""), "take lease"),
            PassExchange(.lease(.taken), "check still wanted"),
            PassExchange(.stillWanted(true), "add"),
            PassExchange(.added(id: 7), "record 7"),
            PassExchange(.stored, "list"),
            // The fresh list completes the record (the row's `added`), then vouches with its tag.
            PassExchange(.listed([AccountPassCase.row(7)], etag: "\"e1\""), "record 7"),
            PassExchange(.stored, "save registered, tag \"e1\""),
            PassExchange(.saved(true), "give back lease"),
            PassExchange(.leaseGivenBack, "finish added registered, 1 writes"),
        ]),
    AccountPassCase(
        name: "a stop during the list confirming an add ends the pass as a stop: no verdict saved, no pass planned after it", first: "list",
        exchanges: [
            PassExchange(.listed([], etag: "\"e0\""), "take lease"),
            PassExchange(.lease(.taken), "check still wanted"),
            PassExchange(.stillWanted(true), "add"),
            PassExchange(.added(id: 7), "record 7"),
            PassExchange(.stored, "list"),
            PassExchange(.failed(.server(stopped)), "give back lease"),
            PassExchange(.leaseGivenBack, "finish failed pending, 1 writes"),
        ]),
    AccountPassCase(
        name: "an add answered without its id (v1.32.0): a list finds the row", first: "list",
        exchanges: [
            PassExchange(.listed([], etag: nil), "take lease"),
            PassExchange(.lease(.taken), "check still wanted"),
            PassExchange(.stillWanted(true), "add"),
            PassExchange(.added(id: nil), "list"),
            PassExchange(.listed([AccountPassCase.row(9)], etag: nil), "record 9"),
            PassExchange(.stored, "save registered"),
            PassExchange(.saved(true), "give back lease"),
            PassExchange(.leaseGivenBack, "finish added registered, 1 writes"),
        ]),
    AccountPassCase(
        name: "a recorded row gone, doubted by a record of it under another name: one server, proven, and planned again", records: [7],
        first: "list",
        exchanges: [
            PassExchange(.listed([], etag: nil), "read doubt"),
            PassExchange(.doubt(doubt(row: 7)), "record one server gitbay.example other.example (7)"),
            PassExchange(.proven(true), "read afresh"),
            PassExchange(.fresh(fresh(.release)), "list"),
        ]),
    AccountPassCase(
        name: "a recorded row gone, the proof known already: planned as any gone row", records: [7], first: "list",
        exchanges: [
            PassExchange(.listed([], etag: nil), "read doubt"),
            PassExchange(.doubt(doubt(row: 7)), "record one server gitbay.example other.example (7)"),
            PassExchange(.proven(false), "take lease"),
        ]),
    AccountPassCase(
        name: "a recorded row gone, with no doubt, or one about another row or with no row: nothing proven", records: [7], first: "list",
        exchanges: [
            PassExchange(.listed([], etag: nil), "read doubt"),
            PassExchange(.doubt(nil), "take lease"),
            PassExchange(.lease(.recordsChanged), "read afresh"),
            PassExchange(.fresh(freshRecording(7)), "list"),
            PassExchange(.listed([], etag: nil), "read doubt"),
            PassExchange(.doubt(doubt(row: 8)), "take lease"),
            PassExchange(.lease(.recordsChanged), "read afresh"),
            PassExchange(.fresh(freshRecording(7)), "list"),
            PassExchange(.listed([], etag: nil), "read doubt"),
            PassExchange(.doubt(RowDoubt(since: AccountPassCase.now, instance: "https://other.example")), "take lease"),
        ]),
    AccountPassCase(
        name: "a pause: the recorded row is removed, then its record forgotten", desire: .release, state: .paused, records: [7], first: "list",
        exchanges: [
            PassExchange(.listed([AccountPassCase.row(7)], etag: nil), "take lease"),
            PassExchange(.lease(.taken), "check still wanted"),
            PassExchange(.stillWanted(true), "remove 7 (not wanted)"),
            PassExchange(.removed, "forget 7 (removed from the server)"),
            PassExchange(.stored, "save paused"),
            PassExchange(.saved(true), "give back lease"),
            PassExchange(.leaseGivenBack, "finish removed paused, 1 writes"),
        ]),
    AccountPassCase(
        name: "what the pass planned for changed before the add: no write, planned again, signed out meanwhile", first: "list",
        exchanges: [
            PassExchange(.listed([], etag: nil), "take lease"),
            PassExchange(.lease(.taken), "check still wanted"),
            PassExchange(.stillWanted(false), "give back lease"),
            PassExchange(.leaseGivenBack, "read afresh"),
            PassExchange(.fresh(nil), "finish skipped pending, 0 writes"),
        ]),
    AccountPassCase(
        name: "changed under every pass: three passes, then left to the next run", first: "list",
        exchanges: [
            PassExchange(.listed([], etag: nil), "take lease"),
            PassExchange(.lease(.recordsChanged), "read afresh"),
            PassExchange(.fresh(fresh(.hold)), "list"),
            PassExchange(.listed([], etag: nil), "take lease"),
            PassExchange(.lease(.recordsChanged), "read afresh"),
            PassExchange(.fresh(fresh(.hold)), "list"),
            PassExchange(.listed([], etag: nil), "take lease"),
            PassExchange(.lease(.recordsChanged), "read afresh"),
            PassExchange(.fresh(fresh(.hold)), "finish skipped pending, 0 writes"),
        ]),
    AccountPassCase(
        name: "another live process holds the lease: skipped, nothing written", first: "list",
        exchanges: [
            PassExchange(.listed([], etag: nil), "take lease"),
            PassExchange(.lease(.heldElsewhere(heldElsewhere)), "finish skipped pending, 0 writes"),
        ]),
    AccountPassCase(
        name: "a list that times out: the failure and its wait are saved", first: "list",
        exchanges: [
            PassExchange(.failed(.server(timedOut)), "save error after 1 failure"),
            PassExchange(.saved(true), "finish failed error, 0 writes"),
        ]),
    AccountPassCase(
        name: "no API token stored: failed, nothing saved", first: "list",
        exchanges: [PassExchange(.noClient(AccountFailure(Refused())), "finish failed error, 0 writes")]),
    AccountPassCase(
        name: "a 304 to the remembered tag: nothing planned, nothing written, a steady verdict", records: [7], status: remembered([7]),
        first: "list if-none-match \"e1\"",
        exchanges: [PassExchange(.notModified, "finish unchanged registered, 0 writes, steady")]),
    AccountPassCase(
        name: "the lease held already by this process: not given back at the end", first: "list",
        exchanges: [
            PassExchange(.listed([], etag: nil), "take lease"),
            PassExchange(.lease(.alreadyHeld), "check still wanted"),
            PassExchange(.stillWanted(true), "add"),
            PassExchange(.added(id: 7), "record 7"),
            PassExchange(.stored, "save registered"),
            PassExchange(.saved(true), "finish added registered, 1 writes"),
        ]),
    AccountPassCase(
        name: "the account gone as the lease is asked for: read afresh, and signed out", first: "list",
        exchanges: [
            PassExchange(.listed([], etag: nil), "take lease"),
            PassExchange(.lease(.gone), "read afresh"),
            PassExchange(.fresh(nil), "finish skipped pending, 0 writes"),
        ]),
    AccountPassCase(
        name: "the store fails as the lease is taken: the failure is saved, nothing written", first: "list",
        exchanges: [
            PassExchange(.listed([], etag: nil), "take lease"),
            PassExchange(.failed(storeFailed), "save error after 1 failure"),
            PassExchange(.saved(true), "finish failed error, 0 writes"),
        ]),
    AccountPassCase(
        name: "the store fails as the doubt is read: the failure is saved", records: [7], first: "list",
        exchanges: [
            PassExchange(.listed([], etag: nil), "read doubt"),
            PassExchange(.failed(storeFailed), "save error after 1 failure"),
            PassExchange(.saved(true), "finish failed error, 0 writes"),
        ]),
    AccountPassCase(
        name: "the store fails as the proof of one server is recorded: saved as a failure", records: [7], first: "list",
        exchanges: [
            PassExchange(.listed([], etag: nil), "read doubt"),
            PassExchange(.doubt(doubt(row: 7)), "record one server gitbay.example other.example (7)"),
            PassExchange(.failed(storeFailed), "save error after 1 failure"),
            PassExchange(.saved(true), "finish failed error, 0 writes"),
        ]),
    AccountPassCase(
        name: "an add the server rejects: the failure is saved under the lease, then the lease given back", first: "list",
        exchanges: [
            PassExchange(.listed([], etag: nil), "take lease"),
            PassExchange(.lease(.taken), "check still wanted"),
            PassExchange(.stillWanted(true), "add"),
            PassExchange(.failed(.server(rejected)), "save error after 1 failure"),
            PassExchange(.saved(true), "give back lease"),
            PassExchange(.leaseGivenBack, "finish failed error, 0 writes"),
        ]),
    AccountPassCase(
        name: "the list that finds an add's row (v1.32.0) times out: the add counts, the failure is saved", first: "list",
        exchanges: [
            PassExchange(.listed([], etag: nil), "take lease"),
            PassExchange(.lease(.taken), "check still wanted"),
            PassExchange(.stillWanted(true), "add"),
            PassExchange(.added(id: nil), "list"),
            PassExchange(.failed(.server(timedOut)), "save error after 1 failure"),
            PassExchange(.saved(true), "give back lease"),
            PassExchange(.leaseGivenBack, "finish failed error, 1 writes"),
        ]),
    AccountPassCase(
        name: "the verdict not saved because the account changed: planned again; the add made before still says added", first: "list",
        exchanges: [
            PassExchange(.listed([], etag: nil), "take lease"),
            PassExchange(.lease(.taken), "check still wanted"),
            PassExchange(.stillWanted(true), "add"),
            PassExchange(.added(id: 7), "record 7"),
            PassExchange(.stored, "save registered"),
            PassExchange(.saved(false), "give back lease"),
            PassExchange(.leaseGivenBack, "read afresh"),
            PassExchange(.fresh(freshRecording(7)), "list"),
            PassExchange(.listed([AccountPassCase.row(7)], etag: nil), "finish added registered, 1 writes, steady"),
        ]),
    AccountPassCase(
        name: "a verdict the store cannot save: the lease given back, failed, nothing more asked of the store", desire: .release, state: .paused,
        records: [7],
        first: "list",
        exchanges: [
            PassExchange(.listed([AccountPassCase.row(7)], etag: nil), "take lease"),
            PassExchange(.lease(.taken), "check still wanted"),
            PassExchange(.stillWanted(true), "remove 7 (not wanted)"),
            PassExchange(.removed, "forget 7 (removed from the server)"),
            PassExchange(.stored, "save paused"),
            PassExchange(.failed(storeFailed), "give back lease"),
            PassExchange(.leaseGivenBack, "finish failed paused, 1 writes"),
        ]),
    AccountPassCase(
        name: "the store fails as the account is read afresh: failed, and nothing more asked of the store", first: "list",
        exchanges: [
            PassExchange(.listed([], etag: nil), "take lease"),
            PassExchange(.lease(.recordsChanged), "read afresh"),
            PassExchange(.failed(storeFailed), "finish failed error, 0 writes"),
        ]),
]

@Suite("Account pass")
struct AccountPassTests {
    @Test("events in, steps out", arguments: passCases)
    func transcript(_ testCase: AccountPassCase) {
        var pass = testCase.pass
        #expect(AccountPassCase.describe(pass.begin(at: AccountPassCase.now)) == testCase.first)
        for (index, exchange) in testCase.exchanges.enumerated() {
            let step = AccountPassCase.describe(pass.handle(exchange.event, at: AccountPassCase.now))
            #expect(step == exchange.next, "after exchange \(index + 1)")
            if step != exchange.next { return }
        }
    }

    @Test("the table feeds every (phase, event) pair the pass accepts")
    func everyPairTabled() {
        var fed: Set<String> = []
        for testCase in passCases {
            var pass = testCase.pass
            _ = pass.begin(at: AccountPassCase.now)
            for exchange in testCase.exchanges {
                fed.insert("\(AccountPassFuzzTests.name(pass.phase)) \(AccountPassFuzzTests.kind(exchange.event))")
                _ = pass.handle(exchange.event, at: AccountPassCase.now)
            }
        }
        #expect(AccountPassFuzzTests.accepted.subtracting(fed).sorted() == [])
        #expect(fed.subtracting(AccountPassFuzzTests.accepted).sorted() == [], "a pair the table feeds that the pass is not listed to accept")
    }
}
