import Foundation
import Testing

@testable import GitbayAPI
@testable import GitbayKeyring
@testable import GitbayReconcile
@testable import GitbayState
@testable import GitbaySupport

/// The token renewal machine: a table over every (state, event) pair it accepts from its
/// driver, each row a transcript from `start(at:)` to the end (the rows are in
/// RenewalMachineTableTests+Rows.swift), and a check that the table feeds each pair.
@Suite("Renewal machine")
struct RenewalMachineTableTests {
    typealias Effect = RenewalMachine.Effect

    /// One event handed to the machine after `start(at:)`.
    enum Event: Sendable, CustomStringConvertible {
        case tokensListed(Set<String>, expiries: [String: Date], at: Date)
        case stepDone
        case revokeAnswered(RevocationMachine.RevokeAnswer)
        case minted(Secret)
        case expiryLearned(Date?)
        case replaced(Bool)
        case failed(RenewalMachine.Failure)

        /// The event's kind, with what tells its variants apart (the names listed aside).
        var description: String {
            switch self {
            case .tokensListed: "tokensListed"
            case .stepDone: "stepDone"
            case .revokeAnswered(.revoked): "revokeAnswered(revoked)"
            case .revokeAnswered(.unknownName): "revokeAnswered(unknownName)"
            case .revokeAnswered(.refused): "revokeAnswered(refused)"
            case .revokeAnswered(.failed): "revokeAnswered(failed)"
            case .minted: "minted"
            case .expiryLearned(let date): date == nil ? "expiryLearned(nil)" : "expiryLearned(date)"
            case .replaced(let swapped): "replaced(\(swapped))"
            case .failed(.refused): "failed(refused)"
            case .failed(.keyring): "failed(keyring)"
            case .failed(.other): "failed(other)"
            }
        }
    }

    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let facts: RenewalMachine.Facts
        /// What `start(at: now)` leads to.
        let first: Effect
        /// The events, each followed by the effect it must lead to; the last effect is the end.
        let exchanges: [(Event, Effect)]
        let writes: Int

        var testDescription: String { name }
    }

    static let marker = "gbs-abcdef"
    static let current = "gitbay-sync-laptop-gbs-abcdef"
    static let stale = "gitbay-sync-laptop-gbs-abcdef-r20260101000000"
    /// A stale name the server no longer lists.
    static let gone = "gitbay-sync-laptop-gbs-abcdef-r20250101000000"
    /// A stale name another install minted.
    static let foreign = "gitbay-sync-desk-gbs-zzzzzz"
    /// 2026-12-26 17:46:40 UTC.
    static let now = Date(timeIntervalSinceReferenceDate: 820_000_000)
    /// When a clean-up's list is answered.
    static let later = now.addingTimeInterval(5)
    /// The successor of `current` minted at `now`, and at `later`.
    static let successor = "gitbay-sync-laptop-gbs-abcdef-r20261226174640"
    static let laterSuccessor = "gitbay-sync-laptop-gbs-abcdef-r20261226174645"
    static let day: TimeInterval = 86_400
    static let lifetime = Duration.seconds(90 * 86_400)
    static let account = "alice@gitbay.example"
    /// The keyring item of the token in use.
    static let inUse = "alice@gitbay.example"
    /// The keyring item a rotation at `now` writes its successor to.
    static let successorItem = "alice@gitbay.example gitbay-sync-laptop-gbs-abcdef-r20261226174640"
    static let token = Secret("gb_successor")
    static let refusal = GitbayError(kind: .authFailed, account: "alice@gitbay.example", command: ["token", "list"])
    static let down = GitbayError(kind: .transport(.timedOut(.request, limit: .seconds(30))), account: "alice", command: ["token", "revoke"])
    static let storeDown = AccountFailure.local(.store(.busy(path: "/home/alice/.local/state/gitbay-sync/state.db")))

    /// The facts of `account`'s token named `name`, expiring `expiresIn` seconds after `now`
    /// (nil: not known yet).
    static func facts(
        name: String? = current, expiresIn: TimeInterval?, lifetime: Duration? = lifetime, stale: [String] = [], item: String? = nil,
        staleItems: [String: String] = [:], keyringPresent: Bool = true
    ) -> RenewalMachine.Facts {
        RenewalMachine.Facts(
            details: APITokenDetails(name: name, expiresAt: expiresIn.map { now.addingTimeInterval($0) }, lifetime: lifetime),
            staleNames: stale, keyringItem: item, staleItems: staleItems, accountName: account, installMarker: marker,
            keyringPresent: keyringPresent)
    }

    static func listed(_ names: Set<String>, expiries: [String: Date] = [:], at time: Date = now) -> Event {
        .tokensListed(names, expiries: expiries, at: time)
    }

    /// The end, with what was renewed: `successor` (of `current`) when the token was rotated.
    static func ended(
        revoked: [String] = [], rotatedTo successor: String? = nil, predecessorRevoked: Bool = false, failure: AccountFailure? = nil,
        waitingFor keyring: KeyringUnavailable? = nil, refused: GitbayError? = nil
    ) -> Effect {
        var renewal = TokenRenewal()
        renewal.revoked = revoked
        if let successor { (renewal.predecessor, renewal.successor) = (current, successor) }
        renewal.predecessorRevoked = predecessorRevoked
        renewal.failure = failure ?? keyring.map { .local(.keyring($0)) }
        renewal.keyringUnavailable = keyring
        return .finish(renewal, refused: refused)
    }

    @Test("every (state, event) pair", arguments: table)
    func transcript(_ row: Case) {
        var machine = RenewalMachine(row.facts)
        let first = machine.start(at: Self.now)
        #expect(first == row.first, "at the start")
        guard first == row.first else { return }
        for (event, expected) in row.exchanges {
            #expect(!machine.isFinished, "fed after the end: \(event)")
            guard !machine.isFinished else { return }
            let effect = Self.feed(event, to: &machine)
            #expect(effect == expected, "after \(event)")
            // A machine gone astray may trap on the next event: its first difference is enough.
            guard effect == expected else { return }
        }
        #expect(machine.isFinished)
        #expect(machine.writes == row.writes)
        guard case .finish(let renewal, _) = row.exchanges.last?.1 ?? row.first else {
            Issue.record("the row does not end")
            return
        }
        #expect(machine.renewal == renewal)
    }

    @Test("the table feeds every (state, event) pair the machine accepts from its driver")
    func everyPairTabled() {
        let fed = Self.fedPairs(Self.table)
        let accepted = Set(Self.accepted.flatMap { state, events in events.map { "\(state) × \($0)" } })
        #expect(accepted.subtracting(fed).isEmpty, "never fed: \(accepted.subtracting(fed).sorted())")
        #expect(fed.subtracting(accepted).isEmpty, "fed, yet not accepted: \(fed.subtracting(accepted).sorted())")
    }

    /// The pairs the driver can hand in, by state: each step's own answer, and the failures its
    /// step can throw (the store's are `other`, the keyring's `keyring`, a request's `refused`
    /// or `other`). A `token revoke`, a successor's expiry and a discard never throw.
    static let accepted: [String: [String]] = [
        "initial": ["start → finish", "start → listTokens", "start → recordSuccessor"],
        "listing": ["tokensListed, an expiry to record", "tokensListed, none to record", "failed(refused)", "failed(other)"],
        "recordingExpiry": ["stepDone", "failed(other)"],
        "cleaning(revoking)": ["revokeAnswered(revoked)", "revokeAnswered(unknownName)", "revokeAnswered(refused)", "revokeAnswered(failed)"],
        "cleaning(forgettingMint)": ["stepDone", "failed(other)"],
        "cleaning(deletingItem)": ["stepDone", "failed(keyring)"],
        "cleaning(forgettingName)": ["stepDone", "failed(other)"],
        "rotating(recordingName)": ["stepDone", "failed(other)"],
        "rotating(minting)": ["minted", "failed(refused)", "failed(other)"],
        "rotating(storingInKeyring)": ["stepDone", "failed(keyring)"],
        "rotating(learningExpiry)": ["expiryLearned(date)", "expiryLearned(nil)"],
        "rotating(replacing)": ["replaced(true)", "replaced(false)", "failed(other)"],
        "rotating(revokingPredecessor)": [
            "revokeAnswered(revoked)", "revokeAnswered(unknownName)", "revokeAnswered(refused)", "revokeAnswered(failed)",
        ],
        "rotating(deletingPredecessorItem)": ["stepDone", "failed(keyring)"],
        "rotating(forgettingPredecessor)": ["stepDone", "failed(other)"],
        "discarding": ["stepDone"],
    ]

    /// The (state, event) pairs `rows` feed, each state told by the effect that led to it.
    static func fedPairs(_ rows: [Case]) -> Set<String> {
        var fed: Set<String> = []
        for row in rows {
            let outcome =
                switch row.first {
                case .listTokens: "listTokens"
                case .recordSuccessor: "recordSuccessor"
                case .finish: "finish"
                default: "\(row.first)"
                }
            fed.insert("initial × start → \(outcome)")
            var (effect, swapping) = (row.first, false)
            for (event, next) in row.exchanges {
                if case .replace = effect { swapping = true }
                var kind = event.description
                if case .tokensListed = event {
                    if case .recordExpiry = next { kind += ", an expiry to record" } else { kind += ", none to record" }
                }
                fed.insert("\(state(after: effect, swapping: swapping)) × \(kind)")
                effect = next
            }
        }
        return fed
    }

    /// The machine's state once `effect` is out; `swapping`: a swap was asked for already.
    static func state(after effect: Effect, swapping: Bool) -> String {
        switch effect {
        case .listTokens: "listing"
        case .recordExpiry: "recordingExpiry"
        case .revoke: swapping ? "rotating(revokingPredecessor)" : "cleaning(revoking)"
        case .forgetPendingMint: "cleaning(forgettingMint)"
        case .deleteItem: swapping ? "rotating(deletingPredecessorItem)" : "cleaning(deletingItem)"
        case .forgetStaleName: swapping ? "rotating(forgettingPredecessor)" : "cleaning(forgettingName)"
        case .recordSuccessor: "rotating(recordingName)"
        case .mint: "rotating(minting)"
        case .storeInKeyring: "rotating(storingInKeyring)"
        case .learnExpiry: "rotating(learningExpiry)"
        case .replace: "rotating(replacing)"
        case .discard: "discarding"
        case .finish: "finished"
        }
    }

    static func feed(_ event: Event, to machine: inout RenewalMachine) -> Effect {
        switch event {
        case .tokensListed(let names, let expiries, let time): machine.tokensListed(names, expiries: expiries, at: time)
        case .stepDone: machine.stepDone()
        case .revokeAnswered(let answer): machine.revokeAnswered(answer)
        case .minted(let token): machine.minted(token)
        case .expiryLearned(let date): machine.expiryLearned(date)
        case .replaced(let swapped): machine.replaced(swapped)
        case .failed(let failure): machine.failed(failure)
        }
    }
}
