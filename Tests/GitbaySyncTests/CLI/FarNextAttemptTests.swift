import Foundation
import GitbayFake
import TestSupport
import Testing

@testable import GitbayAPI
@testable import GitbayReconcile
@testable import GitbayState
@testable import GitbaySupport
@testable import GitbaySync

/// A next attempt recorded further ahead than any wait a run sets (six hours): by a run while
/// the clock ran years ahead, or from an unbounded `Retry-After` an earlier version stored. A
/// plain `run` does not wait for it, and `status` and `doctor` say what it was.
@Suite("A next attempt beyond any wait a run sets")
struct FarNextAttemptTests {
    static let start = Date(timeIntervalSince1970: 1_800_000_000)

    static func run(_ cli: CLIHarness, _ arguments: [String], at date: Date) async -> CLIResult {
        await cli.run(arguments) { $0.now = { date } }
    }

    /// How the far next attempt came to be recorded, given the harness, the server and the account.
    struct Recording: Sendable, CustomTestStringConvertible {
        let name: String
        let record: @Sendable (CLIHarness, FakeGitbayServer, String) async throws -> Date
        var testDescription: String { name }
    }

    static let recordings = [
        Recording(name: "a run while the clock ran ten years ahead was rate limited") { cli, server, _ in
            let ahead = start.addingTimeInterval(10 * 365 * 86400)
            server.inject(.rateLimited(retryAfter: 60), command: "notifications device list")
            let failed = await FarNextAttemptTests.run(cli, ["run"], at: ahead)
            #expect(failed.code == 1, "\(failed.err)")
            return ahead.addingTimeInterval(60)
        },
        Recording(name: "an earlier version stored a Retry-After of 99999999999 seconds (the year 5195)") { cli, _, name in
            let store = try await cli.store()
            let account = try #require(try await store.account(named: name))
            var status = try await store.status(ofAccount: account.id)
            let next = start.addingTimeInterval(99_999_999_999)
            status.condition = .error
            status.lastError = "\(name): `notifications device list` failed: the server is rate limiting this account (HTTP 429)"
            status.nextRetryAt = next
            status.nextRetryReason = .retryAfter
            status.failures = 1
            try await store.saveStatus(status, ofAccount: account.id)
            return next
        },
    ]

    @Test("status and doctor say it plainly, and the next plain run tries the account", arguments: recordings)
    func triedAtTheNextRun(_ recording: Recording) async throws {
        let server = try FakeGitbayServer()
        let cli = try CLIHarness()
        let alice = try await cli.login(server, "alice")
        #expect(await cli.run(["device", "set-token"], stdin: "c0ffee00aaaabbbbccccdddd").code == 0)
        #expect(await Self.run(cli, ["run"], at: Self.start).code == 0)
        let next = try await recording.record(cli, server, alice)
        let now = Self.start.addingTimeInterval(120)
        let recorded = "it was recorded for \(Timestamp.format(next)), further ahead than any wait gitbay-sync sets: a wrong clock or a wrong server"

        let status = await Self.run(cli, ["status"], at: now)
        let due = "it is due \(RelativeTime.said(next, now: now)), further ahead than any wait gitbay-sync sets: a wrong clock or a wrong server"
        #expect(status.out.contains("    next attempt: at the next run: \(due)"), "\(status.out)")
        let doctor = await Self.run(cli, ["doctor"], at: now)
        #expect(doctor.code == 1, "\(doctor.out)")
        #expect(doctor.out.contains("FAIL  account.schedule  \(alice): the next attempt \(recorded)"), "\(doctor.out)")
        #expect(doctor.out.hasSuffix("1 of 14 checks failed, 2 with a warning."), "\(doctor.out)")

        server.resetRequests()
        let run = await Self.run(cli, ["run", "--json"], at: now)
        #expect(run.code == 0, "\(run.err)")
        #expect(server.requests().count >= 1, "the account is tried, not left waiting")
        let outcome = try #require(try RunOutcomeTests.accounts(run)[alice])
        #expect(outcome["action"] as? String != "skipped", "\(outcome)")
        let store = try await cli.store()
        let account = try #require(try await store.account(named: alice))
        #expect(try await store.status(ofAccount: account.id).nextRetryAt == nil)
        let healthy = await Self.run(cli, ["doctor"], at: now)
        #expect(healthy.code == 0, "\(healthy.out)")
    }
}
