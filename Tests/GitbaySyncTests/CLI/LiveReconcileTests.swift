import Foundation
import GitbayFake
import Testing

@testable import GitbayAPI
@testable import GitbayState
@testable import GitbaySupport
@testable import GitbaySync

/// The commands that reconcile on their way (`device clear`, `prefer`, `pause`, `resume`,
/// `remove-account`'s handover) print each account's line as it is done, as `run` does, so a hung server holds back only its own
/// accounts; a stop names those not done and ends the command by the signal.
@Suite("Commands that reconcile on their way", .timeLimit(.minutes(1)))
struct LiveReconcileTests {
    @Test("device clear: alice's line is printed while bob's server hangs; Ctrl-C then names bob and exits 130")
    func deviceClear() async throws {
        let setup = try await RunProgressTests.Setup()
        let shutdown = ShutdownSignal()
        let result = await setup.cli.run(["device", "clear"]) { context in
            context.shutdown = shutdown
            RunProgressTests.watching(&context) { line in
                if line.hasPrefix(setup.alice) { shutdown.request() }
            }
        }
        #expect(result.code == 130, "\(result.err)")
        #expect(result.out.hasPrefix("\(setup.alice)  removed"), "\(result.out)")
        #expect(result.out.contains("removed from 1 of 2 accounts, not yet from \(setup.bob)"), "\(result.out)")
        #expect(!result.err.contains("took longer"), "bob was stopped, not timed out: \(result.err)")
        let last = result.err.split(separator: "\n").last.map(String.init)
        #expect(last == "Error: interrupted: 1 of 2 accounts not asked to the end: \(setup.bob).", "\(result.err)")
    }

    @Test("prefer on a hung server: Ctrl-C stops it at once, names the accounts not done and exits 130")
    func preferOnHungServer() async throws {
        let (server, cli) = (try FakeGitbayServer(), try CLIHarness())
        #expect(await cli.run(["device", "set-token"], stdin: "c0ffee00aaaabbbbccccdddd").code == 0)
        let alice = try await cli.login(server, "alice")
        let carol = try await cli.login(server, "carol")
        server.inject(.hang, command: "notifications device list", times: 10)
        server.resetRequests()
        let shutdown = ShutdownSignal()
        let stopper = Task {
            while !server.requests().contains(where: { $0.argv.contains("list") }) { try await Task.sleep(for: .milliseconds(5)) }
            shutdown.request()
        }
        let result = await cli.run(["prefer", carol]) { context in context.shutdown = shutdown }
        try await stopper.value
        #expect(result.code == 130, "\(result.err)")
        #expect(result.out.contains("\(carol) is now the preferred account"), "\(result.out)")
        #expect(!result.err.contains("took longer"), "stopped, not timed out: \(result.err)")
        let last = result.err.split(separator: "\n").last.map(String.init)
        #expect(last == "Error: interrupted: 2 of 2 accounts not asked to the end: \(alice), \(carol).", "\(result.err)")
    }

    /// Alice, carol and dave on one server, the device registered; the holder of its token is
    /// signed out, so the others take it over.
    static func threeOnOneServer() async throws -> (FakeGitbayServer, CLIHarness, alice: String, carol: String, dave: String) {
        let (server, cli) = (try FakeGitbayServer(), try CLIHarness())
        #expect(await cli.run(["device", "set-token"], stdin: "c0ffee00aaaabbbbccccdddd").code == 0)
        let alice = try await cli.login(server, "alice")
        let carol = try await cli.login(server, "carol")
        let dave = try await cli.login(server, "dave")
        #expect(await cli.run(["prefer", alice]).code == 0)
        #expect(server.devices(of: "alice").count == 1)
        server.resetRequests()
        return (server, cli, alice, carol, dave)
    }

    @Test("remove-account: dave's handover line is printed while carol's list hangs; Ctrl-C then names carol and exits 130")
    func removeAccountHandover() async throws {
        let (server, cli, alice, carol, dave) = try await Self.threeOnOneServer()
        server.inject(.hang, command: "notifications device list", user: "carol", times: 10)
        let shutdown = ShutdownSignal()
        let result = await cli.run(["remove-account", alice]) { context in
            context.shutdown = shutdown
            RunProgressTests.watching(&context) { line in
                if line.hasPrefix(dave) { shutdown.request() }
            }
        }
        #expect(result.code == 130, "\(result.err)")
        #expect(result.out.hasPrefix("Removed \(alice): this device is deregistered"), "\(result.out)")
        #expect(result.out.contains("\n\(dave)  "), "\(result.out)")
        #expect(!result.out.split(separator: "\n").contains { $0.hasPrefix(carol) }, "no line of carol's: \(result.out)")
        #expect(!result.err.contains("took longer"), "carol was stopped, not timed out: \(result.err)")
        let last = result.err.split(separator: "\n").last.map(String.init)
        #expect(last == "Error: interrupted: 1 of 2 accounts not asked to the end: \(carol).", "\(result.err)")
        #expect(try await cli.store().account(named: alice) == nil, "the removal itself is complete")
    }

    @Test("remove-account --force on a hung server: Ctrl-C keeps the account removing with its token, says so and exits 130")
    func removeAccountHung() async throws {
        let (server, cli, alice, _, _) = try await Self.threeOnOneServer()
        server.inject(.hang, command: "notifications device list", user: "alice", times: 10)
        let shutdown = ShutdownSignal()
        let stopper = Task {
            while !server.requests().contains(where: { $0.user == "alice" && $0.argv.contains("list") }) {
                try await Task.sleep(for: .milliseconds(5))
            }
            shutdown.request()
        }
        let result = await cli.run(["remove-account", alice, "--force"]) { context in context.shutdown = shutdown }
        try await stopper.value
        #expect(result.code == 130, "\(result.err)")
        #expect(!result.err.contains("took longer"), "stopped, not timed out: \(result.err)")
        let last = result.err.split(separator: "\n").last.map(String.init)
        #expect(
            last
                == "Error: interrupted: \(alice) is not removed: this device is not deregistered yet, and its API token is neither revoked nor deleted; it stays `removing` with its API token and is no longer counted as signed in, and `gitbay-sync run` or `gitbay-sync remove-account \(alice)` finishes the removal.",
            "\(result.err)")
        let store = try await cli.store()
        let account = try #require(try await store.account(named: alice))
        #expect(account.state == .removing)
        #expect(try await store.apiToken(ofAccount: account.id) != nil)
        #expect(server.devices(of: "alice").count == 1, "nothing was removed on the server")
        #expect(!server.requests().contains { $0.argv.contains("revoke") }, "\(server.requests().map(\.argv))")
    }

    @Test(
        "remove-account (--force too) on a server that hangs on `token revoke` or the `whoami` after it: Ctrl-C cuts the revocation short, keeps the token, says so and exits 130",
        arguments: ["token revoke", "whoami"], [false, true])
    func removeAccountRevocationHung(hung command: String, force: Bool) async throws {
        let server = try FakeGitbayServer()
        let token = server.mintToken(for: "alice", name: "laptop-sync")
        let (cli, alice) = try await SignOutRevokesTests.signedIn(server, token: token, name: "laptop-sync")
        #expect(await cli.run(["device", "set-token"], stdin: "c0ffee00aaaabbbbccccdddd").code == 0)
        #expect(await cli.run(["run"]).code == 0)
        #expect(server.devices(of: "alice").count == 1)
        server.inject(.hang, command: command, times: 10)
        server.resetRequests()
        // A revocation that is not cut short waits out this timeout: far longer than a stop takes.
        var client = CLIHarness.client
        (client.transport.requestTimeout, client.deadline) = (.seconds(15), .seconds(15))
        let shutdown = ShutdownSignal()
        let words = command.split(separator: " ").map(String.init)
        let stopper = Task {
            while !server.requests().contains(where: { $0.argv.starts(with: words) }) { try await Task.sleep(for: .milliseconds(5)) }
            shutdown.request()
            return ContinuousClock.now
        }
        let result = await cli.run(["remove-account", alice] + (force ? ["--force"] : []), client: client) { context in context.shutdown = shutdown }
        let ended = ContinuousClock.now
        let stopped = try await stopper.value
        #expect(result.code == 130, "\(result.err)")
        #expect(stopped.duration(to: ended) < .seconds(5), "the revocation was cut at the stop, not timed out")
        #expect(!result.err.contains("took longer"), "stopped, not timed out: \(result.err)")
        let last = result.err.split(separator: "\n").last.map(String.init)
        #expect(
            last
                == "Error: interrupted: \(alice) is not removed: this device is deregistered, but its API token is not known to be revoked (its revocation was cut short) and is not deleted; it stays `removing` with its API token and is no longer counted as signed in, and `gitbay-sync run` or `gitbay-sync remove-account \(alice)` finishes the removal.",
            "\(result.err)")
        let store = try await cli.store()
        let account = try #require(try await store.account(named: alice))
        #expect(account.state == .removing)
        #expect(try await store.apiToken(ofAccount: account.id) != nil)
        let detail = try await store.status(ofAccount: account.id).detail
        #expect(detail?.contains("its revocation on the server was interrupted") == true, "\(String(describing: detail))")
        #expect(server.devices(of: "alice").isEmpty, "the device was deregistered before the stop")
        #expect(server.accepts(token) == (command == "token revoke"), "a hung revocation does nothing; one answered before a hung check does")
    }
}
