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

/// What the command line says when accounts fail: the exit code and the summary naming them.
/// How failures are classified and kept apart is tested through `Reconciler` in
/// GitbayReconcileTests; what needs other processes or the built binary stays here.
@Suite("Failures stay with their account")
struct FailureIsolationTests {
    @Test(
        "a failing account makes run exit with a partial failure naming it; the others are registered; a refused token stays a failure while skipped")
    func partialFailure() async throws {
        let healthy = try FakeGitbayServer()
        let broken = try FakeGitbayServer()
        let cli = try CLIHarness()
        let alice = try await cli.login(healthy, "alice")
        let bobToken = broken.mintToken(for: "bob")
        #expect(await cli.run(["login", broken.baseURL], stdin: bobToken).code == 0)
        let bob = "bob@127.0.0.1:\(broken.port)"
        #expect(await cli.run(["device", "set-token"], stdin: RunOutcomeTests.token).code == 0)
        broken.revokeToken(bobToken)

        let result = await cli.run(["run", "--json"])
        #expect(result.code == ExitCode.partialFailure.rawValue)
        #expect(result.err.contains("1 of 2 accounts failed: \(bob)"))
        let outcomes = try RunOutcomeTests.accounts(result)
        #expect(outcomes[alice]?["action"] as? String == "added")
        #expect(outcomes[bob]?["action"] as? String == "failed")
        #expect(outcomes[bob]?["condition"] as? String == "auth-failed")
        #expect((outcomes[bob]?["error"] as? String)?.contains(bob) == true)
        // One sign-in hint, the same wherever it is given, with the account's own instance.
        let hint = "sign in again with a full-scope token: `gitbay-sync login \(broken.baseURL) --ssh` mints one"
        #expect((outcomes[bob]?["error"] as? String)?.contains("S" + hint.dropFirst()) == true, "\(result.out)")

        let status = await cli.run(["status"])
        #expect(status.code == ExitCode.partialFailure.rawValue, "an account waits for a new token")
        #expect(status.out.contains("waiting for you: \(bob) (auth-failed)"), "\(status.out)")
        #expect(status.out.contains("    to fix: " + hint), "\(status.out)")
        #expect(await cli.run(["status", "--json"]).code == ExitCode.partialFailure.rawValue)

        broken.resetRequests()
        let again = await cli.run(["run", "--json"])
        #expect(again.code == ExitCode.partialFailure.rawValue)
        #expect(try RunOutcomeTests.accounts(again)[bob]?["action"] as? String == "skipped")
        #expect((try RunOutcomeTests.accounts(again)[bob]?["reason"] as? String)?.contains(hint) == true, "\(again.out)")
        #expect(broken.requests().isEmpty)
        #expect(try await cli.login(broken, "bob") == bob)
        #expect(await cli.run(["run"]).code == 0)
        #expect(broken.devices(of: "bob").count == 1)
        #expect(await cli.run(["status"]).code == 0, "signed in again, nothing waits for you")
    }

    @Test("accounts another process is reconciling are left to it: runs skip them, local changes take effect, a removal says who finishes it")
    func accountsLeasedElsewhere() async throws {
        let server = try FakeGitbayServer()
        let cli = try CLIHarness()
        let alice = try await cli.login(server, "alice")
        #expect(await cli.run(["device", "set-token"], stdin: "c0ffee00aaaabbbbccccdddd").code == 0)
        #expect(await cli.run(["run"]).code == 0)
        // Another gitbay-sync of this process's kind holds alice's lease (this process is alive).
        let store = try await cli.store()
        let id = try #require(try await store.account(named: alice)).id
        let other = LeaseHolder.new()
        #expect(try await store.takeLeases([id], holder: other).taken == [id])
        server.resetRequests()

        let run = await cli.run(["run", "--json"])
        // Left to the other process, and not checked by this run: not a success.
        #expect(run.code == ExitCode.busy.rawValue, "\(run.err)")
        let outcome = try #require((try run.json()["accounts"] as? [[String: Any]])?.first)
        #expect(outcome["action"] as? String == "skipped")
        #expect(outcome["unchecked"] as? String == "held-elsewhere")
        #expect((outcome["reason"] as? String)?.contains("another gitbay-sync (pid \(getpid()))") == true)
        #expect(server.requests().isEmpty)

        #expect(await cli.run(["device", "set-token"], stdin: "77aa88bb99cc00dd11ee22ff").code == 0)
        #expect(try await store.device().token == Secret("77aa88bb99cc00dd11ee22ff"))
        let pause = await cli.run(["pause", alice])
        #expect(pause.code == 0, "\(pause.err)")
        #expect(try await store.account(id: id)?.state == .paused)

        let removal = await cli.run(["remove-account", alice])
        #expect(removal.code == ExitCode.busy.rawValue)
        #expect(
            removal.err.contains("is reconciling it right now: that process finishes the removal (or, if it stops first, `gitbay-sync run` does)"))
        #expect(try await store.account(id: id)?.state == .removing)
        #expect(try await store.apiToken(ofAccount: id) != nil)
        #expect(server.requests().isEmpty)

        // Once the other process gives the lease back, a run finishes the removal.
        try await store.releaseLeases([id], holder: other)
        #expect(await cli.run(["run"]).code == 0)
        #expect(try await store.account(id: id) == nil)
        #expect(server.devices().isEmpty)
    }

    @Test("while another process's run waits on a hung server in a write, local changes take effect at once")
    func localChangesDuringHungRun() async throws {
        let server = try FakeGitbayServer()
        let hung = try FakeGitbayServer()
        let cli = try CLIHarness()
        let alice = try await cli.login(server, "alice")
        let bob = try await cli.login(hung, "bob")
        #expect(await cli.run(["device", "set-token"], stdin: "c0ffee00aaaabbbbccccdddd").code == 0)
        #expect(await cli.run(["run"]).code == 0)
        // The server loses bob's row: the next run adds it again, holding bob's lease from
        // just before that write, and the add hangs.
        hung.deleteDevice(id: try #require(hung.devices(of: "bob").first).id)
        hung.inject(.hang, command: "notifications device add", times: 10)

        // The built binary runs against the same database and hangs on bob's instance.
        let null = try ChildProcess.nullDevice()
        defer { close(null) }
        let run = try SpawnedChild.spawn(
            try BuiltBinary.located(), ["run"], environment: cli.environment.merging(["GITBAY_SYNC_DB": cli.databasePath]) { $1 },
            descriptors: [0: null, 1: null, 2: null])
        defer { run.stop() }
        let adding = { hung.requests().contains { $0.user == "bob" && $0.isWrite } }
        for _ in 0..<500 where !adding() {
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(adding(), "the run reached bob's hung instance with a write")

        // Each of these completes while that run still waits.
        #expect(await cli.run(["device", "set-token"], stdin: "77aa88bb99cc00dd11ee22ff").code == 0)
        #expect(run.isRunning)
        let pause = await cli.run(["pause", alice])
        #expect(pause.code == 0, "\(pause.err)")
        #expect(run.isRunning)
        #expect(await cli.run(["login", server.baseURL], stdin: server.mintToken(for: "carol")).code == 0)
        #expect(run.isRunning)
        let removal = await cli.run(["remove-account", bob])
        #expect(removal.code == ExitCode.busy.rawValue, "\(removal.err)")
        #expect(run.isRunning)

        let store = try await cli.store()
        #expect(try await store.device().token == Secret("77aa88bb99cc00dd11ee22ff"))
        #expect(try await store.account(named: alice)?.state == .paused)
        #expect(try await store.account(named: bob)?.state == .removing)
        #expect(server.devices(of: "alice").isEmpty, "the pause deregistered alice at once")
    }
}
