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

/// What a command says is what happened: a failure is named where it happened, nothing is
/// reported done that was not, and nothing is promised that nothing will do.
@Suite("Messages say what did and did not happen")
struct MessageTruthTests {
    static let token = RunOutcomeTests.token

    /// Two accounts on one server (alice and bob unless named), the device registered: the
    /// first signed in holds it.
    static func twoOnOneServer(users: (String, String) = ("alice", "bob")) async throws -> (CLIHarness, FakeGitbayServer, alice: String, bob: String)
    {
        let server = try FakeGitbayServer()
        let cli = try CLIHarness()
        let alice = try await cli.login(server, users.0)
        let bob = try await cli.login(server, users.1)
        #expect(await cli.run(["device", "set-token"], stdin: Self.token).code == 0)
        #expect(await cli.run(["run"]).code == 0)
        #expect(server.devices(of: users.0).count == 1)
        return (cli, server, alice, bob)
    }

    static func row(_ result: CLIResult, _ name: String) throws -> [String: Any] {
        let list = try #require(try result.json()["accounts"] as? [[String: Any]])
        return try #require(list.first { $0["account"] as? String == name })
    }

    // MARK: remove-account and a failing hook

    @Test("after a failing hook, remove-account --json names the hook's failure in error")
    func hookFailureInJSON() async throws {
        let server = try FakeGitbayServer()
        let (cli, name) = try await RemovalTests.registeredAlice(on: server, apiToken: server.mintToken(for: "alice"))
        _ = try RemovalTests.installHook(cli, "echo 'backup first' >&2; exit 3")
        let result = await cli.run(["remove-account", name, "--json"])
        #expect(result.code == ExitCode.unavailable.rawValue)
        let json = try result.json()
        #expect(json["result"] as? String == "kept")
        let error = try #require(json["error"] as? String, "error is null: \(result.out)")
        #expect(error.contains("exited with status 3"))
        #expect(error.contains("backup first"))
    }

    @Test("remove-account --force after a failing hook says the hook failed, in text and in --json")
    func forcedPastHook() async throws {
        let server = try FakeGitbayServer()
        let (cli, name) = try await RemovalTests.registeredAlice(on: server, apiToken: server.mintToken(for: "alice"))
        _ = try RemovalTests.installHook(cli, "echo 'backup first' >&2; exit 3")
        let text = await cli.run(["remove-account", name, "--force"])
        #expect(text.code == 0, "\(text.err)")
        let said = text.out + "\n" + text.err
        #expect(said.contains("exited with status 3"), "\(said)")
        #expect(said.contains("backup first"))

        let second = try FakeGitbayServer()
        let (cli2, name2) = try await RemovalTests.registeredAlice(on: second, apiToken: second.mintToken(for: "alice"))
        _ = try RemovalTests.installHook(cli2, "exit 4")
        let json = await cli2.run(["remove-account", name2, "--force", "--json"])
        #expect(json.code == 0, "\(json.err)")
        #expect(try json.json()["result"] as? String == "forced")
        #expect((try json.json()["error"] as? String)?.contains("exited with status 4") == true, "\(json.out)")
    }

    @Test("after a failing hook, accounts, status and doctor say the device is deregistered and the hook failed")
    func hookFailureShown() async throws {
        let server = try FakeGitbayServer()
        let (cli, name) = try await RemovalTests.registeredAlice(on: server, apiToken: server.mintToken(for: "alice"))
        _ = try RemovalTests.installHook(cli, "echo 'backup first' >&2; exit 3")
        #expect(await cli.run(["remove-account", name]).code == ExitCode.unavailable.rawValue)
        #expect(server.devices(of: "alice").isEmpty)

        let accounts = await cli.run(["accounts"])
        #expect(!accounts.out.contains("not deregistered"), "\(accounts.out)")
        #expect(accounts.out.contains("deregistered"))
        #expect(accounts.out.contains("hook failed"))

        let status = await cli.run(["status", "--json"])
        let row = try Self.row(status, name)
        #expect(row["state"] as? String == "removing")
        #expect((row["detail"] as? String)?.contains("this device is deregistered") == true, "\(row)")
        #expect((row["last_error"] as? String)?.contains("backup first") == true)
        let statusText = await cli.run(["status"])
        #expect(!statusText.out.contains("not deregistered"), "\(statusText.out)")

        let doctor = await cli.run(["doctor", "--json"])
        let checks = try #require(try doctor.json()["checks"] as? [[String: Any]])
        let state = try #require(checks.first { $0["name"] as? String == "account.state" })
        let detail = try #require(state["detail"] as? String)
        #expect(!detail.contains("not all removed"), "\(detail)")
        #expect(detail.contains("deregistered"))
        #expect((state["fix"] as? String)?.contains("hook") == true)
    }

    // MARK: device clear and pause against a server that cannot be reached

    @Test("device clear with a server down says which rows were not removed, and exits 1")
    func deviceClearUnreachable() async throws {
        let server = try FakeGitbayServer()
        let down = try FakeGitbayServer()
        let cli = try CLIHarness()
        let alice = try await cli.login(server, "alice")
        let carol = try await cli.login(down, "carol")
        #expect(await cli.run(["device", "set-token"], stdin: Self.token).code == 0)
        #expect(await cli.run(["run"]).code == 0)
        down.isDown = true
        let result = await cli.run(["device", "clear"])
        #expect(result.code == ExitCode.partialFailure.rawValue)
        #expect(!result.out.contains("removed from every account"), "\(result.out)")
        #expect(result.out.contains("not yet from \(carol)"), "\(result.out)")
        #expect(!result.out.contains("not yet from \(alice)"))
        #expect(result.err.contains("Runs try again once the backoff is over"), "\(result.err)")
        #expect(server.devices(of: "alice").isEmpty)
        #expect(down.devices(of: "carol").count == 1)

        let json = await cli.run(["device", "clear", "--json"])
        #expect(json.code == ExitCode.partialFailure.rawValue)
        #expect(try json.json()["ok"] as? Bool == false, "\(json.out)")
    }

    @Test("pause with the server down says the device may still be registered, and exits 1")
    func pauseUnreachable() async throws {
        let server = try FakeGitbayServer()
        let (cli, name) = try await RemovalTests.registeredAlice(on: server, apiToken: server.mintToken(for: "alice"))
        server.isDown = true
        let result = await cli.run(["pause", name])
        #expect(result.code == ExitCode.partialFailure.rawValue)
        #expect(!result.out.contains("this device is not registered for it"), "\(result.out)")
        #expect(result.out.contains("could not be deregistered"), "\(result.out)")
        #expect(result.out.contains("`gitbay-sync run`"))
        let store = try await cli.store()
        #expect(try await store.account(named: name)?.state == .paused, "paused here all the same")

        let json = await cli.run(["pause", name, "--json"])
        #expect(json.code == ExitCode.partialFailure.rawValue)
        #expect(try json.json()["ok"] as? Bool == false, "\(json.out)")

        server.isDown = false
        let done = await cli.run(["pause", name])
        #expect(done.code == 0, "\(done.err)")
        #expect(done.out.contains("this device is deregistered"))
        #expect(server.devices(of: "alice").isEmpty)
    }

    // MARK: prefer and the holder's removal

    @Test("prefer on a paused account does not say it holds the token, and says what resume does")
    func preferPaused() async throws {
        let (cli, server, alice, bob) = try await Self.twoOnOneServer()
        #expect(await cli.run(["pause", bob]).code == 0)
        let result = await cli.run(["prefer", bob])
        #expect(result.code == 0, "\(result.err)")
        #expect(!result.out.contains("now holds"), "\(result.out)")
        #expect(result.out.contains("paused"))
        #expect(result.out.contains("`gitbay-sync resume \(bob)`"))
        #expect(result.out.contains("\(alice) holds it meanwhile"), "\(result.out)")
        #expect(server.devices(of: "alice").count == 1)
        #expect(server.devices(of: "bob").isEmpty)

        let resumed = await cli.run(["resume", bob])
        #expect(resumed.code == 0, "\(resumed.err)")
        #expect(server.devices(of: "bob").count == 1, "resume moves the token to the preferred account")
        #expect(server.devices(of: "alice").isEmpty)
    }

    @Test("removing the holder hands the device token to the other account of the instance at once")
    func removingTheHolderHandsOver() async throws {
        let (cli, server, alice, bob) = try await Self.twoOnOneServer()
        let result = await cli.run(["remove-account", alice, "--json"])
        #expect(result.code == 0, "\(result.err)")
        #expect(try result.json()["result"] as? String == "removed")
        #expect(server.devices(of: "alice").isEmpty)
        #expect(server.devices(of: "bob").count == 1, "bob holds the token without waiting for a run")
        let handedOver = try #require(try result.json()["accounts"] as? [[String: Any]])
        #expect(handedOver.map { $0["account"] as? String } == [bob])
        #expect(handedOver.first?["condition"] as? String == "registered")
        let accounts = await cli.run(["accounts", "--json"])
        let row = try Self.row(accounts, bob)
        #expect(row["condition"] as? String == "registered", "\(row)")
        #expect(!(accounts.out.contains("held by \(alice)")))

        // In text, the removal says who takes the token over.
        let (other, otherServer, carol, dave) = try await Self.twoOnOneServer(users: ("carol", "dave"))
        let text = await other.run(["remove-account", carol])
        #expect(text.code == 0, "\(text.err)")
        #expect(text.out.contains("\(dave) takes over this device's token"), "\(text.out)")
        #expect(otherServer.devices(of: "dave").count == 1)
    }

    // MARK: what retries a failure

    @Test("a failed run says what retries it, and no message promises a retry by itself")
    func whatRetries() async throws {
        let server = try FakeGitbayServer()
        let cli = try CLIHarness()
        let name = try await cli.login(server, "alice")
        #expect(await cli.run(["device", "set-token"], stdin: Self.token).code == 0)
        server.inject(.status(502, body: "<html>bad gateway</html>"), command: "notifications device list", times: 10)
        let result = await cli.run(["run"])
        #expect(result.code == ExitCode.partialFailure.rawValue)
        #expect(result.err.contains(name))
        #expect(!result.err.contains("retried on the next run"), "\(result.err)")
        #expect(!result.err.contains("will be retried"), "\(result.err)")
        #expect(result.err.contains("Runs try again once the backoff is over"), "\(result.err)")
    }

    @Test("a login that fails promises no retry: nothing was stored")
    func loginPromisesNothing() async throws {
        let server = try FakeGitbayServer()
        let cli = try CLIHarness()
        let token = server.mintToken(for: "alice")
        server.inject(.status(502, body: "<html>bad gateway</html>"), command: "whoami", times: 10)
        let result = await cli.run(["login", server.baseURL], stdin: token)
        #expect(result.code == ExitCode.unavailable.rawValue)
        #expect(result.err.contains("nothing was stored"))
        #expect(!result.err.contains("retried"), "\(result.err)")
    }

    @Test("pause and resume --help say they act at once, not on the next run", arguments: ["pause", "resume"])
    func pauseHelp(_ command: String) async throws {
        let cli = try CLIHarness()
        let result = await cli.run([command, "--help"])
        #expect(result.code == 0)
        #expect(!result.out.contains("on the next run"), "\(result.out)")
        #expect(!result.out.contains("The next run"), "\(result.out)")
        #expect(result.out.contains("at once"))
    }

    // MARK: ok under run --every

    @Test("run --every --json: ok is false while an account waits for a person (a refused token), not while it waits out a server's backoff")
    func okWhileSkipped() async throws {
        let server = try FakeGitbayServer()
        let bobsServer = try FakeGitbayServer()
        let cli = try CLIHarness()
        _ = try await cli.login(server, "alice")
        let bob = try await cli.login(bobsServer, "bob")
        #expect(await cli.run(["device", "set-token"], stdin: Self.token).code == 0)
        bobsServer.inject(.rateLimited(retryAfter: 100), command: "notifications device list", user: "bob")
        let backoff = try RunEveryTests.cycles(await RunEveryTests.runTimer(cli, cycles: 2))
        #expect(RunEveryTests.actions(backoff[1])[bob] == "skipped")
        #expect(backoff.map { $0["ok"] as? Bool } == [false, true], "bob failed, then only waits out the backoff his server asked for")

        // The same for an account skipped because its token was refused.
        let carolsServer = try FakeGitbayServer()
        let other = try CLIHarness()
        let carolToken = carolsServer.mintToken(for: "carol")
        #expect(await other.run(["login", carolsServer.baseURL], stdin: carolToken).code == 0)
        #expect(await other.run(["device", "set-token"], stdin: Self.token).code == 0)
        carolsServer.revokeToken(carolToken)
        let refused = try RunEveryTests.cycles(await RunEveryTests.runTimer(other, cycles: 2))
        #expect(refused.map { $0["ok"] as? Bool } == [false, false])
    }

    @Test("run --json: ok and the exit code follow the same rule as under --every")
    func okOnce() async throws {
        let server = try FakeGitbayServer()
        let cli = try CLIHarness()
        let token = server.mintToken(for: "alice")
        #expect(await cli.run(["login", server.baseURL], stdin: token).code == 0)
        #expect(await cli.run(["device", "set-token"], stdin: Self.token).code == 0)
        server.revokeToken(token)
        #expect(await cli.run(["run"]).code == ExitCode.partialFailure.rawValue)
        let skipped = await cli.run(["run", "--json"])
        #expect(skipped.code == ExitCode.partialFailure.rawValue)
        #expect(try skipped.json()["ok"] as? Bool == false)
    }
}
