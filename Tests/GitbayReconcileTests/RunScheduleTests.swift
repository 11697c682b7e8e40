import Foundation
import Testing

@testable import GitbayReconcile
@testable import GitbayState
@testable import GitbaySupport

/// One row of the schedule table: accounts (by user, in sign-in order) and what a run does with each.
struct ScheduleCase: Sendable, CustomTestStringConvertible {
    let name: String
    var accounts: [(user: String, host: String, state: AccountState)]
    var statuses: [String: AccountStatusRecord] = [:]
    var preferred: [String] = []
    /// Pairs of hosts found to name one server.
    var sameServers: [(String, String)] = []
    var hasDeviceToken = true
    var honourBackoff = true
    /// What each account gets: "hold", "shadowed:<holder user>", "release", "skip:refused", "skip:backoff".
    let expected: [String]

    var testDescription: String { name }

    static let now = Date(timeIntervalSince1970: 1_800_000_000)
    static let later = AccountStatusRecord(condition: .error, nextRetryAt: now.addingTimeInterval(60), failures: 1)
    static let refused = AccountStatusRecord(condition: .authFailed, failures: 1)
    /// A wait recorded `seconds` ahead of now, for a server's `Retry-After`.
    static func waiting(_ seconds: Double) -> AccountStatusRecord {
        AccountStatusRecord(condition: .error, nextRetryAt: now.addingTimeInterval(seconds), nextRetryReason: .retryAfter, failures: 1)
    }

    func account(_ index: Int) -> AccountRecord {
        let entry = accounts[index]
        let instance = try! InstanceURL(parsing: "https://\(entry.host)")
        return AccountRecord(
            id: Int64(index + 1), instance: instance, username: entry.user, name: AccountRecord.name(username: entry.user, instance: instance),
            state: entry.state, signedInAt: Self.now
        )
    }

    var entries: [RunSchedule.Entry] {
        let records = accounts.indices.map(account)
        let byUser = Dictionary(uniqueKeysWithValues: records.map { ($0.username, $0) })
        let names = ServerNames(
            proofs: sameServers.map {
                SameServerRecord(
                    instance: try! InstanceURL(parsing: "https://\($0.0)"), other: try! InstanceURL(parsing: "https://\($0.1)"), deviceID: 1,
                    added: "t", provenAt: Self.now)
            })
        return RunSchedule.entries(
            accounts: records, statuses: Dictionary(uniqueKeysWithValues: statuses.map { (byUser[$0.key]!.id, $0.value) }),
            preferred: Dictionary(uniqueKeysWithValues: preferred.map { (names.server(of: byUser[$0]!.instance), byUser[$0]!.id) }),
            names: names, hasDeviceToken: hasDeviceToken, honourBackoff: honourBackoff, now: Self.now
        )
    }

    static func word(_ entry: RunSchedule.Entry) -> String {
        switch entry {
        case .reconcile(_, .hold): "hold"
        case .reconcile(_, .shadowed(let holder)): "shadowed:\(holder.prefix { $0 != "@" })"
        case .reconcile(_, .release): "release"
        case .skip(_, _, .tokenRefused): "skip:refused"
        case .skip(_, _, .removalTokenRefused): "skip:refused-removal"
        case .skip(_, _, .backingOff): "skip:backoff"
        case .skip(_, _, .heldElsewhere): "skip:leased"
        case .skip(_, _, let reason): "skip:\(reason)"
        }
    }
}

@Suite("Run schedule")
struct RunScheduleTests {
    static let cases: [ScheduleCase] = [
        ScheduleCase(
            name: "one account per instance: each holds", accounts: [("alice", "a.example", .active), ("carol", "b.example", .active)],
            expected: ["hold", "hold"]),
        ScheduleCase(
            name: "7. two accounts on one instance: the earliest signed in holds, the other is shadowed",
            accounts: [("alice", "a.example", .active), ("bob", "a.example", .active)], expected: ["hold", "shadowed:alice"]),
        ScheduleCase(
            name: "7. the user's choice holds", accounts: [("alice", "a.example", .active), ("bob", "a.example", .active)],
            preferred: ["bob"], expected: ["shadowed:bob", "hold"]),
        ScheduleCase(
            name: "7. a paused account does not hold: the next active one does",
            accounts: [("alice", "a.example", .paused), ("bob", "a.example", .active)], expected: ["release", "hold"]),
        ScheduleCase(
            name: "7. a refused token does not hold: it is skipped and the next one holds",
            accounts: [("alice", "a.example", .active), ("bob", "a.example", .active)], statuses: ["alice": ScheduleCase.refused],
            expected: ["skip:refused", "hold"]),
        ScheduleCase(
            name: "7. a holder waiting out a backoff keeps the token: the others stay shadowed",
            accounts: [("alice", "a.example", .active), ("bob", "a.example", .active)], statuses: ["alice": ScheduleCase.later],
            expected: ["skip:backoff", "shadowed:alice"]),
        ScheduleCase(name: "8. paused: released", accounts: [("alice", "a.example", .paused)], expected: ["release"]),
        ScheduleCase(
            name: "9. being removed: released, also when the instance has another account",
            accounts: [("alice", "a.example", .removing), ("bob", "a.example", .active)], expected: ["release", "hold"]),
        ScheduleCase(
            name: "no device token: every account released", accounts: [("alice", "a.example", .active), ("bob", "a.example", .active)],
            hasDeviceToken: false, expected: ["release", "release"]),
        ScheduleCase(
            name: "waiting out a backoff: skipped", accounts: [("alice", "a.example", .active)], statuses: ["alice": ScheduleCase.later],
            expected: ["skip:backoff"]),
        ScheduleCase(
            name: "a person's word (or --now) does not wait for the backoff", accounts: [("alice", "a.example", .active)],
            statuses: ["alice": ScheduleCase.later], honourBackoff: false, expected: ["hold"]),
        ScheduleCase(
            name: "a backoff already over: reconciled", accounts: [("alice", "a.example", .active)],
            statuses: ["alice": AccountStatusRecord(condition: .error, nextRetryAt: ScheduleCase.now, failures: 1)], expected: ["hold"]),
        ScheduleCase(
            name: "the longest wait a run sets (six hours): skipped", accounts: [("alice", "a.example", .active)],
            statuses: ["alice": ScheduleCase.waiting(6 * 3600)], expected: ["skip:backoff"]),
        ScheduleCase(
            name: "a wait a second past any a run sets: a wrong clock or server, tried now", accounts: [("alice", "a.example", .active)],
            statuses: ["alice": ScheduleCase.waiting(6 * 3600 + 1)], expected: ["hold"]),
        ScheduleCase(
            name: "a next attempt in the year 5195 (an unbounded Retry-After): tried now", accounts: [("alice", "a.example", .active)],
            statuses: ["alice": ScheduleCase.waiting(99_999_999_999)], expected: ["hold"]),
        ScheduleCase(
            name: "a wait recorded while the clock ran ten years ahead: tried now, the other account still waits",
            accounts: [("alice", "a.example", .active), ("carol", "b.example", .active)],
            statuses: ["alice": ScheduleCase.waiting(10 * 365 * 86400), "carol": ScheduleCase.later], expected: ["hold", "skip:backoff"]),
        ScheduleCase(
            name: "9. a removal recorded as waiting for years is retried now", accounts: [("alice", "a.example", .removing)],
            statuses: ["alice": ScheduleCase.waiting(10 * 365 * 86400)], expected: ["release"]),
        ScheduleCase(
            name: "a refused token is skipped even with --now", accounts: [("alice", "a.example", .active)],
            statuses: ["alice": ScheduleCase.refused], honourBackoff: false, expected: ["skip:refused"]),
        ScheduleCase(
            name: "9. a refused token being removed is not sent again: the removal waits for a sign-in or --force",
            accounts: [("alice", "a.example", .removing)], statuses: ["alice": ScheduleCase.refused], honourBackoff: false,
            expected: ["skip:refused-removal"]),
        ScheduleCase(
            name: "8. a refused token of a paused account is not sent again either",
            accounts: [("alice", "a.example", .paused), ("bob", "a.example", .active)], statuses: ["alice": ScheduleCase.refused],
            expected: ["skip:refused", "hold"]),
        ScheduleCase(
            name: "7. two names not proven one server: a holder each",
            accounts: [("ann", "a.example", .active), ("ben", "alias.example", .active)], expected: ["hold", "hold"]),
        ScheduleCase(
            name: "7. two names proven one server: one holder, the earliest signed in",
            accounts: [("ann", "a.example", .active), ("ben", "alias.example", .active), ("cy", "b.example", .active)],
            sameServers: [("alias.example", "a.example")], expected: ["hold", "shadowed:ann", "hold"]),
        ScheduleCase(
            name: "7. two names proven one server: the preferred account holds, whichever name it signed in under",
            accounts: [("ann", "a.example", .active), ("ben", "alias.example", .active)], preferred: ["ben"],
            sameServers: [("a.example", "alias.example")], expected: ["shadowed:ben", "hold"]),
    ]

    @Test("which accounts run, with what desire, and which are skipped", arguments: cases)
    func schedule(_ example: ScheduleCase) {
        #expect(example.entries.map(ScheduleCase.word) == example.expected)
    }

    @Test("an account another live process holds is left to it, with its last condition")
    func leasedElsewhere() throws {
        let example = ScheduleCase(name: "leases", accounts: [("alice", "a.example", .active), ("carol", "b.example", .active)], expected: [])
        let since = ScheduleCase.now.addingTimeInterval(-5)
        let lease = LeaseRecord(accountID: 2, holderPID: 4242, holderID: "x", takenAt: since, expiresAt: ScheduleCase.now)
        let entries = RunSchedule.leaving(example.entries, heldElsewhere: [2: lease], statuses: [2: AccountStatusRecord(condition: .registered)])
        #expect(entries.map(ScheduleCase.word) == ["hold", "skip:leased"])
        let outcome = try #require(entries[1].skippedOutcome)
        #expect(outcome.action == .skipped)
        #expect(outcome.condition == .registered)
        #expect(outcome.skipReason == .heldElsewhere(pid: 4242, since: since))
        #expect(entries[0].skippedOutcome == nil)
    }

    @Test("a skipped account says why, and when it is tried again")
    func skippedOutcomes() {
        let waiting = AccountStatusRecord(
            condition: .error, lastError: "boom", nextRetryAt: ScheduleCase.later.nextRetryAt, nextRetryReason: .backoff, failures: 1)
        let example = ScheduleCase(
            name: "skips", accounts: [("alice", "a.example", .active), ("carol", "b.example", .active)],
            statuses: ["alice": waiting, "carol": AccountStatusRecord(condition: .authFailed, lastError: "401")], expected: [])
        let outcomes = example.entries.compactMap(\.skippedOutcome)
        #expect(outcomes.map(\.action) == [.skipped, .skipped])
        // Why, as values: the words are the caller's.
        #expect(outcomes.map(\.skipReason) == [.backingOff, .tokenRefused])
        #expect(outcomes.map(\.instance.description) == ["https://a.example", "https://b.example"])
        #expect(outcomes[0].nextRetryAt == waiting.nextRetryAt && outcomes[0].nextRetryReason == .backoff && outcomes[0].failure == .recorded("boom"))
        #expect(outcomes[1].nextRetryAt == nil && outcomes[1].condition == .authFailed && outcomes[1].failure == .recorded("401"))
    }
}
