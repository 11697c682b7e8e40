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

/// What `remove-account` says and how `run` finishes a removal. The removal itself (hooks,
/// their environment and timeout, `--force`) is tested through `AccountRemoval` in
/// GitbayReconcileTests.
@Suite("Removing an account")
struct RemovalTests {
    static let token = RunOutcomeTests.token

    /// Writes an executable pre-remove hook with this shell body.
    static func installHook(_ cli: CLIHarness, _ body: String) throws -> String {
        let folder = cli.folder.path + "/config/gitbay-sync/hooks"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let path = folder + "/pre-remove"
        try ("#!/bin/sh\n" + body + "\n").write(toFile: path, atomically: true, encoding: .utf8)
        chmod(path, 0o755)
        return path
    }

    /// A CLI with alice signed in on `server` (with `apiToken`) and registered by a run.
    static func registeredAlice(on server: FakeGitbayServer, apiToken: String) async throws -> (CLIHarness, String) {
        let cli = try CLIHarness()
        #expect(await cli.run(["login", server.baseURL], stdin: apiToken).code == 0)
        #expect(await cli.run(["device", "set-token"], stdin: Self.token).code == 0)
        #expect(await cli.run(["run"]).code == 0)
        #expect(server.devices(of: "alice").count == 1)
        return (cli, "alice@127.0.0.1:\(server.port)")
    }

    @Test("deregisters first, then deletes the token and records, and the token's bytes leave the file")
    func removal() async throws {
        let server = try FakeGitbayServer()
        let apiToken = server.mintToken(for: "alice")
        let (cli, name) = try await Self.registeredAlice(on: server, apiToken: apiToken)

        let result = await cli.run(["remove-account", name])
        #expect(result.code == 0, "\(result.err)")
        #expect(result.out.contains("Removed \(name)"))
        #expect(server.devices(of: "alice").isEmpty)
        let accounts = await cli.run(["accounts", "--json"])
        #expect((try accounts.json()["accounts"] as? [Any])?.isEmpty == true)
        for suffix in ["", "-wal"] {
            let bytes = fileBytes(cli.databasePath + suffix) ?? Data()
            #expect(bytes.range(of: Data(apiToken.utf8)) == nil, "the API token is still in state.db\(suffix)")
        }
    }

    @Test("an unreachable server keeps the account removing with its token; a later run finishes the removal")
    func unreachableThenBack() async throws {
        let server = try FakeGitbayServer()
        let (cli, name) = try await Self.registeredAlice(on: server, apiToken: server.mintToken(for: "alice"))

        server.isDown = true
        let kept = await cli.run(["remove-account", name])
        #expect(kept.code == ExitCode.unavailable.rawValue)
        #expect(kept.err.contains("is not removed yet"))
        #expect(kept.err.contains("--force"))
        let store = try await cli.store()
        let account = try #require(try await store.account(named: name))
        #expect(account.state == .removing)
        #expect(try await store.apiToken(ofAccount: account.id) != nil)
        #expect(server.devices(of: "alice").count == 1)

        // Still down, and the failure's backoff not over: a run leaves it alone and says until when.
        let waiting = await cli.run(["run"])
        #expect(waiting.code == 0, "\(waiting.err)")
        #expect(waiting.out.contains("\(name)  skipped (error): waiting out a backoff (next attempt in "), "\(waiting.out)")
        #expect(server.requests().isEmpty == false)
        // --now retries at once, fails and says so.
        let failing = await cli.run(["run", "--now"])
        #expect(failing.code == ExitCode.partialFailure.rawValue)
        #expect(failing.err.contains(name))

        // Back, once the backoff is over: the next run finishes the removal.
        server.isDown = false
        let done = await cli.run(["run", "--json"]) { $0.now = { Date().addingTimeInterval(3600) } }
        #expect(done.code == 0, "\(done.err)")
        #expect(server.devices(of: "alice").isEmpty)
        #expect(try await store.account(named: name) == nil)
    }

    @Test("--force deletes now and names the rows left on the server")
    func force() async throws {
        let server = try FakeGitbayServer()
        let (cli, name) = try await Self.registeredAlice(on: server, apiToken: server.mintToken(for: "alice"))
        let id = try #require(server.devices(of: "alice").first?.id)
        server.isDown = true
        let result = await cli.run(["remove-account", name, "--force"])
        #expect(result.code == 0)
        #expect(result.err.contains("row \(id)"))
        let store = try await cli.store()
        #expect(try await store.account(named: name) == nil)
    }

    @Test("a failing hook stops the removal with its message; --force overrides it")
    func failingHook() async throws {
        let server = try FakeGitbayServer()
        let cli = try CLIHarness()
        let name = try await cli.login(server, "alice")
        _ = try Self.installHook(cli, "echo 'backup first' >&2; exit 3")
        let stopped = await cli.run(["remove-account", name])
        #expect(stopped.code == ExitCode.unavailable.rawValue)
        #expect(stopped.err.contains("exited with status 3"))
        #expect(stopped.err.contains("backup first"))
        let store = try await cli.store()
        let account = try #require(try await store.account(named: name))
        #expect(try await store.apiToken(ofAccount: account.id) != nil)
        #expect(await cli.run(["remove-account", name, "--force"]).code == 0)
        #expect(try await store.account(named: name) == nil)
    }

    @Test("a hook others can write is refused: remove-account exits 69 naming it and the fix, the hook does not run, and doctor fails it")
    func unsafeHook() async throws {
        let server = try FakeGitbayServer()
        let cli = try CLIHarness()
        let name = try await cli.login(server, "alice")
        let ran = cli.folder.path + "/ran"
        let hook = try Self.installHook(cli, "touch '\(ran)'")
        #expect(chmod(hook, 0o777) == 0)

        let doctor = await cli.run(["doctor", "--json"])
        let check = try #require(try DoctorTests.checks(doctor)["hook \(hook)"], "\(doctor.out)")
        #expect(check["ok"] as? Bool == false)
        #expect(check["detail"] as? String == "\(hook) can be written by other users (mode 777), so it is not run", "\(check)")
        #expect(check["fix"] as? String == "`chmod go-w \(hook)`", "\(check)")
        #expect(doctor.code == ExitCode.partialFailure.rawValue)

        let refused = await cli.run(["remove-account", name])
        #expect(refused.code == ExitCode.unavailable.rawValue, "\(refused.err)")
        #expect(refused.err.contains("the pre-remove hook \(hook) was not run: \(hook) can be written by other users (mode 777)"), "\(refused.err)")
        #expect(refused.err.contains("`chmod go-w \(hook)`"), "\(refused.err)")
        #expect(!FileManager.default.fileExists(atPath: ran), "the refused hook ran")
        let store = try await cli.store()
        let account = try #require(try await store.account(named: name))
        #expect(account.state == .removing)
        #expect(try await store.apiToken(ofAccount: account.id) != nil)

        // Made safe, the hook runs and the removal completes.
        #expect(chmod(hook, 0o755) == 0)
        #expect(try DoctorTests.checks(await cli.run(["doctor", "--json"]))["hook \(hook)"]?["ok"] as? Bool == true)
        #expect(await cli.run(["remove-account", name]).code == 0)
        #expect(FileManager.default.fileExists(atPath: ran))
    }
}

/// A removal whose API token the server refuses cannot deregister anything: it stops sending
/// that token, and says the two ways out.
@Suite("A removal with a refused token")
struct RefusedRemovalTests {
    @Test("remove-account with a refused token keeps the account, exits 77 and names --force and a new sign-in; runs stop sending the token")
    func refusedTokenStopsRetrying() async throws {
        let server = try FakeGitbayServer()
        let apiToken = server.mintToken(for: "alice")
        let (cli, name) = try await RemovalTests.registeredAlice(on: server, apiToken: apiToken)
        server.revokeToken(apiToken)

        let removal = await cli.run(["remove-account", name])
        #expect(removal.code == ExitCode.denied.rawValue, "\(removal.err)")
        #expect(removal.err.contains("remove-account \(name) --force"), "\(removal.err)")
        #expect(removal.err.contains("gitbay-sync login \(server.baseURL)"), "\(removal.err)")
        #expect(!removal.err.contains("runs retry"), "\(removal.err)")
        let store = try await cli.store()
        #expect(try await store.account(named: name)?.state == .removing)

        server.resetRequests()
        for arguments in [["run"], ["run", "--now"], ["remove-account", name]] {
            let again = await cli.run(arguments)
            #expect(again.code != 0, "\(arguments): \(again.out)")
            #expect(again.err.contains("--force"), "\(arguments): \(again.err)")
            #expect(!again.err.contains("Nothing retries"), "\(arguments): \(again.err)")
        }
        #expect(server.requests().isEmpty, "the refused token was sent again: \(server.requests().map(\.argv))")

        #expect((await cli.run(["status"])).out.contains("remove-account \(name) --force"))
        // Either way out works: a new sign-in makes it active again, and the removal then goes through.
        let token = server.mintToken(for: "alice")
        #expect(await cli.run(["login", server.baseURL], stdin: token).code == 0)
        #expect(await cli.run(["remove-account", name]).code == 0)
        #expect(server.devices(of: "alice").isEmpty)
    }
}

@Suite("Commands on an account being removed")
struct RemovingAccountCommandTests {
    @Test("pause, resume and prefer of an account being removed exit 67 and name both ways on", arguments: ["pause", "resume", "prefer"])
    func refusedLikeAnAccountNotSignedIn(_ verb: String) async throws {
        let server = try FakeGitbayServer()
        let (cli, name) = try await RemovalTests.registeredAlice(on: server, apiToken: server.mintToken(for: "alice"))
        server.isDown = true
        #expect(await cli.run(["remove-account", name]).code == ExitCode.unavailable.rawValue)
        let result = await cli.run([verb, name])
        #expect(result.code == ExitCode.noSuchAccount.rawValue, "\(result.err)")
        #expect(result.err.contains("gitbay-sync remove-account \(name)"))
        #expect(result.err.contains("gitbay-sync login \(server.baseURL)"))
        #expect(try await cli.store().account(named: name)?.state == .removing)
    }
}
