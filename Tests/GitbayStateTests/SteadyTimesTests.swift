import Foundation
import TestSupport
import Testing

@testable import GitbayState
@testable import GitbaySupport

@Suite("Steady runs' times")
struct SteadyTimesTests {
    static let instance = try! InstanceURL(parsing: "https://gitbay.test")

    @Test("a time's number reads back as the time its text reads back as, from 1600 on; earlier times and none are told apart")
    func numbersAsText() throws {
        var generator = SplitMix64(seed: 0x5EAD)
        for _ in 0..<2000 {
            let date = Date(timeIntervalSince1970: Double.random(in: -11_000_000_000...250_000_000_000, using: &generator))
            let number = Timestamp.milliseconds(date)
            if let number {
                #expect(Timestamp.date(milliseconds: number) == Timestamp.parse(Timestamp.format(date)))
            } else {
                #expect(date < Date(timeIntervalSince1970: -11_676_096_000) || date.timeIntervalSinceReferenceDate >= 250_000_000_000)
            }
        }
        #expect(Timestamp.milliseconds(Date(timeIntervalSince1970: -11_676_096_000)) == -11_676_096_000_000)
        #expect(Timestamp.milliseconds(Date(timeIntervalSince1970: -11_676_096_000.001)) == nil)
        #expect(SteadyTimes.Entry(accountID: 1, attempt: Date(timeIntervalSince1970: -11_676_096_001), success: nil) == nil)
        let none = try #require(SteadyTimes.Entry(accountID: 1, attempt: nil, success: nil))
        #expect(none.attemptDate == nil && none.successDate == nil)
    }

    @Test("entries keep account order through merging and the stored form; a stored form cut short or out of order is read as far as it goes")
    func storedForm() throws {
        func entry(_ id: Int64, _ seconds: Double) throws -> SteadyTimes.Entry {
            try #require(SteadyTimes.Entry(accountID: id, attempt: Date(timeIntervalSince1970: seconds), success: nil))
        }
        let first = SteadyTimes.empty.merging([try entry(5, 50), try entry(2, 20), try entry(9, 90)])
        #expect(first.entries.map(\.accountID) == [2, 5, 9])
        let second = first.merging([try entry(5, 55), try entry(7, 70), try entry(7, 71), try entry(1, 10)])
        #expect(second.entries.map(\.accountID) == [1, 2, 5, 7, 9])
        #expect(second.entry(of: 5)?.attemptDate == Date(timeIntervalSince1970: 55))
        #expect(second.entry(of: 7)?.attemptDate == Date(timeIntervalSince1970: 70))
        #expect(second.entry(of: 9)?.successDate == nil)
        #expect(second.entry(of: 3) == nil && second.entry(of: 10) == nil)

        let bytes = second.bytes
        #expect(bytes.count == 5 * 24)
        #expect(bytes.withUnsafeBytes(SteadyTimes.init(bytes:)) == second)
        #expect(Array(bytes.prefix(3 * 24 + 20)).withUnsafeBytes(SteadyTimes.init(bytes:)).entries == Array(second.entries.prefix(3)))
        let swapped = Array(bytes[24..<48]) + Array(bytes[0..<24]) + Array(bytes[48...])
        #expect(swapped.withUnsafeBytes(SteadyTimes.init(bytes:)).entries.map(\.accountID) == [2])
    }

    @Test(
        "a steady verdict written from unchanged facts leaves the account's row as it was and keeps its times in one row; a full verdict takes them back"
    )
    func oneRowForTheRun() async throws {
        let folder = try TemporaryDirectory()
        let store = try await StateStore.open(folder.location)
        let accounts = [
            try await store.signIn(instance: Self.instance, username: "alice", apiToken: Secret("gb_a")),
            try await store.signIn(instance: Self.instance, username: "bob", apiToken: Secret("gb_b")),
            try await store.signIn(instance: Self.instance, username: "carol", apiToken: Secret("gb_c")),
        ]
        _ = try await store.device()
        let (start, first, second) = (Date(timeIntervalSince1970: 1_800_000_000), 1_800_000_100.25, 1_800_000_200.5)
        let registered = AccountStatusRecord(condition: .registered, lastAttemptAt: start, lastSuccessAt: start, listETag: "\"t\"", etagBasis: "b")
        for account in accounts { try await store.saveStatus(registered, ofAccount: account.id) }
        func steady(_ account: AccountRecord, _ read: AccountStatusRecord, at seconds: Double) -> SteadyVerdict {
            var status = read
            (status.lastAttemptAt, status.lastSuccessAt) = (Date(timeIntervalSince1970: seconds), Date(timeIntervalSince1970: seconds))
            return SteadyVerdict(accountID: account.id, read: read, status: status)
        }
        let raw = try Database(path: folder.location.databasePath)
        func ownAttempts() throws -> [String?] {
            try raw.rows("SELECT last_attempt_at FROM account_status ORDER BY account_id") { row throws(SQLiteError) in
                try row.optionalText("last_attempt_at")
            }
        }
        let stored = try ownAttempts()

        // Every account steady: their rows keep their own times, the run's times are read.
        var facts = try await store.runFacts()
        let all = accounts.map { steady($0, registered, at: first) }
        #expect(try await store.saveSteadyVerdicts(all, read: facts) { _ in [] } == Set(accounts.map(\.id)))
        #expect(try ownAttempts() == stored)
        for account in accounts {
            #expect(
                try await store.status(ofAccount: account.id).lastAttemptAt == Timestamp.parse(Timestamp.format(Date(timeIntervalSince1970: first))))
        }

        // The next steady run checks alice only: bob and carol keep the times of the first.
        facts = try await store.runFacts()
        let read = try #require(facts.statuses[accounts[0].id])
        #expect(try await store.saveSteadyVerdicts([steady(accounts[0], read, at: second)], read: facts) { _ in [] } == [accounts[0].id])
        let now = try await store.runFacts().statuses
        #expect(now[accounts[0].id]?.lastSuccessAt == Timestamp.parse(Timestamp.format(Date(timeIntervalSince1970: second))))
        #expect(now[accounts[1].id] == facts.statuses[accounts[1].id])
        #expect(try ownAttempts() == stored)

        // A verdict written in full is the row's own again; the steady times no longer stand for it.
        let failed = AccountStatusRecord(condition: .error, lastAttemptAt: start, lastError: "down", failures: 1)
        try await store.saveStatus(failed, ofAccount: accounts[1].id)
        #expect(try await store.status(ofAccount: accounts[1].id) == failed)
        #expect(try await store.runFacts().steadyTimes.entries.map(\.accountID) == [accounts[0].id, accounts[2].id])
        #expect(try await store.accountFacts().statuses[accounts[2].id] == now[accounts[2].id])
    }
}

@Suite("Verdicts that differ in their times only")
struct TimesOnlyTests {
    @Test("a verdict differs in its times only when every other field is the same, each field checked")
    func everyFieldCounts() {
        let at = Date(timeIntervalSince1970: 1_800_000_000)
        let base = AccountStatusRecord(
            condition: .registered, detail: "d", lastAttemptAt: at, lastSuccessAt: at, lastError: "e", nextRetryAt: at,
            nextRetryReason: .backoff, failures: 1, listETag: "\"t\"", etagBasis: "b")
        var later = base
        (later.lastAttemptAt, later.lastSuccessAt) = (at + 60, nil)
        #expect(base.differsOnlyInTimes(from: later) && later.differsOnlyInTimes(from: base))
        let changes: [(String, (inout AccountStatusRecord) -> Void)] = [
            ("condition", { $0.condition = .error }), ("detail", { $0.detail = nil }), ("lastError", { $0.lastError = "f" }),
            ("nextRetryAt", { $0.nextRetryAt = at + 1 }), ("nextRetryReason", { $0.nextRetryReason = .retryAfter }),
            ("failures", { $0.failures = 2 }), ("listETag", { $0.listETag = "\"u\"" }), ("etagBasis", { $0.etagBasis = nil }),
            ("unchecked", { $0.unchecked = Unchecked(reason: .keyringLocked, since: at, runs: 1) }),
        ]
        for (field, change) in changes {
            var changed = later
            change(&changed)
            #expect(!base.differsOnlyInTimes(from: changed), "\(field)")
        }
    }
}
