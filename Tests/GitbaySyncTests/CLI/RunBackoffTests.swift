import Foundation
import GitbayFake
import TestSupport
import Testing

@testable import GitbayAPI
@testable import GitbayReconcile
@testable import GitbayState
@testable import GitbaySupport
@testable import GitbaySync
@testable import PushResolve

@Suite("run: backoff across runs, --now, status, journal lines")
struct RunBackoffTests {
    /// A fixed clock, so the waits are exact.
    static let start = Date(timeIntervalSince1970: 2_000_000_000)

    static func run(_ cli: CLIHarness, _ arguments: [String], at date: Date, environment: [String: String] = [:], journal: String? = nil) async
        -> CLIResult
    {
        await cli.run(arguments, extraEnvironment: environment) { context in
            context.now = { date }
            if let journal { context.streamIdentity = { _ in journal } }
        }
    }

    @Test("a plain run waits out the Retry-After a server asked for in an earlier run; --now tries at once; status says when and why")
    func retryAfterAcrossRuns() async throws {
        let server = try FakeGitbayServer()
        let other = try FakeGitbayServer()
        let cli = try CLIHarness()
        let alice = try await cli.login(server, "alice")
        let carol = try await cli.login(other, "carol")
        #expect(await cli.run(["device", "set-token"], stdin: "c0ffee00aaaabbbbccccdddd").code == 0)
        server.inject(.rateLimited(retryAfter: 3600), command: "notifications device list", times: 10)
        server.resetRequests()

        let first = await Self.run(cli, ["run"], at: Self.start)
        #expect(first.code == 1)
        #expect(server.requests().count == 1)
        let due = Timestamp.format(Self.start.addingTimeInterval(3600))

        // A minute later: nothing is sent for alice, carol is reconciled as usual.
        server.resetRequests()
        let second = await Self.run(cli, ["run", "--json"], at: Self.start.addingTimeInterval(60))
        #expect(second.code == 0, "\(second.err)")
        #expect(server.requests().isEmpty)
        let outcomes = try RunOutcomeTests.accounts(second)
        #expect(outcomes[alice]?["action"] as? String == "skipped")
        #expect(outcomes[alice]?["next_retry_at"] as? String == due)
        #expect(outcomes[alice]?["next_retry_reason"] as? String == "retry-after")
        #expect(outcomes[carol]?["action"] as? String == "unchanged")
        #expect(outcomes[carol]?["next_retry_at"] is NSNull)

        let status = await Self.run(cli, ["status"], at: Self.start.addingTimeInterval(60))
        #expect(
            status.out.contains(
                "    next attempt: in 59 min at the earliest: the server asked to wait (Retry-After); `gitbay-sync run --now` tries it now"),
            "\(status.out)")
        let statusJSON = await Self.run(cli, ["status", "--json"], at: Self.start.addingTimeInterval(60))
        let row = try #require((try statusJSON.json()["accounts"] as? [[String: Any]])?.first { $0["account"] as? String == alice })
        #expect(row["next_retry_at"] as? String == due)
        #expect(row["next_retry_reason"] as? String == "retry-after")

        // --now does not wait.
        let forced = await Self.run(cli, ["run", "--now"], at: Self.start.addingTimeInterval(120))
        #expect(forced.code == 1)
        #expect(server.requests().count == 1)

        // Once the wait is over, a plain run tries again by itself.
        server.resetRequests()
        let later = await Self.run(cli, ["run"], at: Self.start.addingTimeInterval(2 * 3600))
        #expect(server.requests().count == 1)
        #expect(later.code == 1, "the fault is still there")
    }

    @Test("an ordinary failure backs off a minute, doubling, and says so")
    func ordinaryBackoff() async throws {
        let server = try FakeGitbayServer()
        let cli = try CLIHarness()
        let alice = try await cli.login(server, "alice")
        #expect(await cli.run(["device", "set-token"], stdin: "c0ffee00aaaabbbbccccdddd").code == 0)
        server.isDown = true
        #expect(await Self.run(cli, ["run"], at: Self.start).code == 1)
        let waiting = await Self.run(cli, ["run"], at: Self.start.addingTimeInterval(30))
        #expect(waiting.code == 0)
        #expect(
            waiting.out.contains(
                "\(alice)  skipped (error): waiting out a backoff (next attempt in 30 s): backing off after failures in a row"
            ), "\(waiting.out)")
        let status = await Self.run(cli, ["status"], at: Self.start.addingTimeInterval(90))
        #expect(
            status.out.contains(
                "    next attempt: at the next run (its wait ended 30 s ago: backing off after failures in a row)"
            ), "\(status.out)")
    }

    @Test("under systemd a plain run's lines carry journal priorities; a variable inherited by a terminal's shell does not")
    func journalPriorities() async throws {
        let server = try FakeGitbayServer()
        let down = try FakeGitbayServer()
        let cli = try CLIHarness()
        let alice = try await cli.login(server, "alice")
        let bob = try await cli.login(down, "bob")
        #expect(await cli.run(["device", "set-token"], stdin: "c0ffee00aaaabbbbccccdddd").code == 0)
        down.isDown = true
        let stream = ["JOURNAL_STREAM": "8:4242"]

        let journaled = await Self.run(cli, ["run"], at: Self.start, environment: stream, journal: "8:4242")
        #expect(journaled.code == 1)
        let out = journaled.out.split(separator: "\n").map(String.init)
        #expect(out.contains { $0.hasPrefix("<5>\(alice)") && $0.contains("added") }, "\(out)")
        #expect(out.contains { $0.hasPrefix("<4>\(bob)") && $0.contains("failed") }, "\(out)")
        let err = journaled.err.split(separator: "\n").map(String.init)
        #expect(!err.isEmpty && err.allSatisfy { $0.hasPrefix("<3>") }, "\(err)")

        let quiet = await Self.run(cli, ["run"], at: Self.start.addingTimeInterval(3600), environment: stream, journal: "8:4242")
        #expect(quiet.out.split(separator: "\n").contains { $0.hasPrefix("<6>\(alice)") && $0.contains("unchanged") }, "\(quiet.out)")

        // JSON stays JSON.
        let json = await Self.run(cli, ["run", "--json"], at: Self.start.addingTimeInterval(7200), environment: stream, journal: "8:4242")
        #expect(json.out.hasPrefix("{"))

        // The stream is not the journal's (a shell in a terminal emulator run as a user service
        // inherits the variable): no prefixes.
        let terminal = await Self.run(cli, ["run"], at: Self.start.addingTimeInterval(3 * 3600), environment: stream, journal: "136:7")
        #expect(!terminal.out.contains("<"), "\(terminal.out)")
        #expect(!terminal.err.contains("<3>"), "\(terminal.err)")

        // An error that ends the command is an error in the journal too.
        let missing = await Self.run(cli, ["run", "--db", cli.folder.path + "/nowhere.db"], at: Self.start, environment: stream, journal: "8:4242")
        #expect(missing.code == 66)
        #expect(missing.err.hasPrefix("<3>Error: no state database at \(cli.folder.path)/nowhere.db"))
    }

    @Test("a run recorded as unattended keeps its time and result; a run without --unattended is not recorded")
    func unattendedRecord() async throws {
        let server = try FakeGitbayServer()
        let down = try FakeGitbayServer()
        let cli = try CLIHarness()
        _ = try await cli.login(server, "alice")
        let bob = try await cli.login(down, "bob")
        #expect(await cli.run(["device", "set-token"], stdin: "c0ffee00aaaabbbbccccdddd").code == 0)
        #expect(await Self.run(cli, ["run"], at: Self.start).code == 0)
        #expect(try await cli.store().lastUnattendedRun(.service) == nil)

        down.isDown = true
        #expect(await Self.run(cli, ["run", "--unattended"], at: Self.start.addingTimeInterval(60)).code == 1)
        let record = try #require(try await cli.store().lastUnattendedRun(.service))
        #expect(record.result == .failed)
        #expect(record.failedAccounts == [bob])
        #expect(record.accounts == 2)
        #expect(record.finishedAt == Self.start.addingTimeInterval(60))
        #expect(record.period == nil)
        #expect(try await cli.store().lastUnattendedRun(.every) == nil)
    }
}
