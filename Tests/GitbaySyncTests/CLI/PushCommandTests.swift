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

@Suite("push on|off|show, against the fake server")
struct PushCommandTests {
    @Test("push off and on flip the account's server-side switch, and show reads it")
    func flip() async throws {
        let server = try FakeGitbayServer()
        let cli = try CLIHarness()
        let alice = try await cli.login(server, "alice")
        #expect(server.pushSetting(of: "alice"))

        let off = await cli.run(["push", "off", alice, "--json"])
        #expect(off.code == 0, "\(off.err)")
        #expect(try off.json()["push"] as? Bool == false)
        #expect(try off.json()["account"] as? String == alice)
        #expect(!server.pushSetting(of: "alice"))
        #expect(server.requests().last?.argv.prefix(4) == ["notifications", "settings", "push", "off"])

        let shown = await cli.run(["push", "show", "--json"])
        let entries = try #require(try shown.json()["accounts"] as? [[String: Any]])
        #expect(entries.count == 1)
        #expect(entries[0]["push"] as? Bool == false)
        #expect(await cli.run(["push", "show"]).out == "\(alice)  push off")
        // A choice, not a failure: status says it and still exits 0.
        let status = await cli.run(["status"])
        #expect(status.code == 0, "\(status.out)")
        #expect(status.out.contains("push off, by choice (`gitbay-sync push on \(alice)` turns it on)"), "\(status.out)")
        let statusJSON = try #require(try await cli.run(["status", "--json"]).json()["accounts"] as? [[String: Any]])
        #expect(statusJSON.first?["push_off"] as? Bool == true)

        let on = await cli.run(["push", "on", alice])
        #expect(on.code == 0)
        #expect(on.out == "Push notifications for \(alice) are on.")
        #expect(server.pushSetting(of: "alice"))
        #expect(!(await cli.run(["status"]).out.contains("push off")))
    }

    @Test("push show asks every account; one failing is reported for it and exits 1")
    func showPartial() async throws {
        let first = try FakeGitbayServer()
        let second = try FakeGitbayServer()
        let cli = try CLIHarness()
        let alice = try await cli.login(first, "alice")
        let bob = try await cli.login(second, "bob")
        _ = await cli.run(["push", "off", bob])
        first.inject(.status(502, body: "<html>bad gateway</html>"), command: "notifications settings show", times: 5)

        let result = await cli.run(["push", "show", "--json"])
        #expect(result.code == 1)
        let entries = try #require(try result.json()["accounts"] as? [[String: Any]])
        #expect(entries.map { $0["account"] as? String } == [alice, bob])
        #expect(entries[0]["push"] is NSNull)
        #expect((entries[0]["error"] as? String)?.contains(alice) == true)
        #expect(entries[1]["push"] as? Bool == false)
        #expect(entries[1]["error"] is NSNull)
        #expect(result.err.contains("1 of 2 accounts failed: \(alice)"))
    }

    @Test("push on for an account not signed in exits 67 without a request")
    func unknownAccount() async throws {
        let server = try FakeGitbayServer()
        let cli = try CLIHarness()
        _ = try await cli.login(server, "alice")
        server.resetRequests()
        let result = await cli.run(["push", "on", "bob@127.0.0.1:\(server.port)"])
        #expect(result.code == ExitCode.noSuchAccount.rawValue)
        #expect(server.requests().isEmpty)
    }

    @Test("a read-only API token cannot turn push off: exit 77, the switch stays on")
    func readOnly() async throws {
        let server = try FakeGitbayServer()
        let cli = try CLIHarness()
        let alice = try await cli.login(server, "alice")
        let store = try await cli.store()
        let account = try #require(try await store.account(named: alice))
        try await store.signIn(instance: account.instance, username: "alice", apiToken: Secret(server.mintToken(for: "alice", scope: .read)))
        let result = await cli.run(["push", "off", alice])
        #expect(result.code == ExitCode.denied.rawValue)
        #expect(result.err.contains("read-only"))
        #expect(server.pushSetting(of: "alice"))
    }
}
