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

/// What the command line says of a run: the `run --json` words and the commands that reconcile
/// (`login`, `pause`, `resume`, `prefer`). The behaviours themselves are tested through
/// `Reconciler` directly in GitbayReconcileTests.
@Suite("Runs through the command line")
struct RunOutcomeTests {
    static let token = "c0ffee00aaaabbbbccccddddeeeeffff"
    static let rotated = "77aa88bb99cc00dd11ee22ff33445566"

    /// A signed-in CLI with a device token, and its servers.
    struct Setup {
        let cli: CLIHarness
        let servers: [FakeGitbayServer]
        let names: [String]
    }

    /// Signs in `users[i]` on `servers[i]` and sets the device token (label "laptop").
    static func setUp(_ servers: [FakeGitbayServer], users: [String]) async throws -> Setup {
        let cli = try CLIHarness()
        var names: [String] = []
        for (server, user) in zip(servers, users) {
            names.append(try await cli.login(server, user))
        }
        let set = await cli.run(["device", "set-token", "--label", "laptop"], stdin: token)
        #expect(set.code == 0, "\(set.err)")
        return Setup(cli: cli, servers: servers, names: names)
    }

    static func accounts(_ result: CLIResult) throws -> [String: [String: Any]] {
        let list = try #require(try result.json()["accounts"] as? [[String: Any]])
        return Dictionary(uniqueKeysWithValues: list.map { ($0["account"] as! String, $0) })
    }

    @Test("run --json names each action: added, unchanged, re-added, rotated, adopted, with the device id")
    func actionWords() async throws {
        let server = try FakeGitbayServer()
        let setup = try await Self.setUp([server], users: ["alice"])
        let name = setup.names[0]
        let first = await setup.cli.run(["run", "--json"])
        #expect(first.code == 0, "\(first.err)")
        let id = try #require(server.devices(of: "alice").first?.id)
        #expect(try Self.accounts(first)[name]?["action"] as? String == "added")
        #expect(try Self.accounts(first)[name]?["device_id"] as? Int == id)
        #expect(try Self.accounts(first)[name]?["condition"] as? String == "registered")

        let steady = await setup.cli.run(["run", "--json"])
        #expect(try Self.accounts(steady)[name]?["action"] as? String == "unchanged")
        #expect(try Self.accounts(steady)[name]?["requests"] as? Int == 1)

        server.deleteDevice(id: id)
        let healed = await setup.cli.run(["run", "--json"])
        #expect(healed.code == 0)
        #expect(try Self.accounts(healed)[name]?["action"] as? String == "re-added")

        #expect(await setup.cli.run(["device", "set-token"], stdin: Self.rotated).code == 0)
        let rotated = await setup.cli.run(["run", "--json"])
        #expect(rotated.code == 0, "\(rotated.err)")
        #expect(try Self.accounts(rotated)[name]?["action"] as? String == "rotated")

        let store = try await setup.cli.store()
        let account = try #require(try await store.account(named: name))
        try await store.forgetRegistration(accountID: account.id, deviceID: try #require(server.devices(of: "alice").first?.id))
        let adopted = await setup.cli.run(["run", "--json"])
        #expect(try Self.accounts(adopted)[name]?["action"] as? String == "adopted")
        #expect(server.devices(of: "alice").map(\.token) == [Self.rotated])
    }

    @Test("two accounts on one instance: run --json says who is shadowed by whom, status says who holds it, prefer hands it over")
    func sharedInstance() async throws {
        let server = try FakeGitbayServer()
        let setup = try await Self.setUp([server, server], users: ["alice", "bob"])
        let first = await setup.cli.run(["run", "--json"])
        #expect(first.code == 0, "\(first.err)")
        let outcomes = try Self.accounts(first)
        #expect(outcomes[setup.names[0]]?["condition"] as? String == "registered")
        #expect(outcomes[setup.names[1]]?["condition"] as? String == "shadowed")
        #expect(outcomes[setup.names[1]]?["shadowed_by"] as? String == setup.names[0])
        let status = await setup.cli.run(["status"])
        #expect(status.out.contains("held by \(setup.names[0])"))

        server.resetRequests()
        let prefer = await setup.cli.run(["prefer", setup.names[1]])
        #expect(prefer.code == 0, "\(prefer.err)")
        #expect(server.devices().map(\.owner) == ["bob"])
        #expect(server.requests().filter(\.isWrite).map(\.user) == ["bob"])
    }

    @Test("pause and resume reconcile at once")
    func pauseResume() async throws {
        let server = try FakeGitbayServer()
        let setup = try await Self.setUp([server], users: ["alice"])
        _ = await setup.cli.run(["run"])
        #expect(await setup.cli.run(["pause", setup.names[0]]).code == 0)
        #expect(server.devices(of: "alice").isEmpty)
        #expect(await setup.cli.run(["resume", setup.names[0]]).code == 0)
        #expect(server.devices(of: "alice").map(\.token) == [Self.token])
    }

    @Test("status says a paused account is paused once, not `paused (paused)`")
    func pausedSaidOnce() async throws {
        let server = try FakeGitbayServer()
        let setup = try await Self.setUp([server], users: ["alice"])
        #expect(await setup.cli.run(["pause", setup.names[0]]).code == 0)
        let status = await setup.cli.run(["status"])
        #expect(status.out.contains("\(setup.names[0])  paused\n"), "\(status.out)")
        #expect(!status.out.contains("paused (paused)"))
    }

    @Test("an account left unchanged for want of a device token says how to set one")
    func noDeviceTokenHint() async throws {
        let server = try FakeGitbayServer()
        let cli = try CLIHarness()
        let alice = try await cli.login(server, "alice")
        let run = await cli.run(["run"])
        #expect(run.code == 0, "\(run.err)")
        #expect(
            run.out.contains("\(alice)  unchanged (no-device-token): set the device token with `gitbay-sync device set-token`"),
            "\(run.out)")
    }

    @Test("run -vv ends with the database's write transactions: a steady run over two instances makes at most one")
    func databaseWorkLine() async throws {
        let (one, two) = (try FakeGitbayServer(), try FakeGitbayServer())
        let setup = try await Self.setUp([one, two, one, two], users: ["alice", "bob", "carol", "dave"])
        #expect(await setup.cli.run(["run"]).code == 0)
        let first = await setup.cli.run(["run", "-vv"])
        #expect(first.code == 0, "\(first.err)")
        let steady = await setup.cli.run(["run", "-vv"])
        #expect(steady.code == 0, "\(steady.err)")
        #expect(one.requests().suffix(2).allSatisfy { $0.status == 304 } && two.requests().suffix(2).allSatisfy { $0.status == 304 })
        let lines = steady.err.split(separator: "\n").filter { $0.contains("database: ") }
        #expect(lines.count == 1)
        let count = try #require(lines.first.flatMap { $0.wholeMatch(of: /debug database: (\d+) write transactions/)?.1 })
        #expect(Int(count).map { $0 <= 1 } == true, "\(lines)")
        #expect(!(await setup.cli.run(["run"]).err.contains("database: ")), "the line is for -vv only")
    }
}
