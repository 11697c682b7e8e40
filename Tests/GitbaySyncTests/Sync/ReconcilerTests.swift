import Foundation
import TestSupport
import GitbayFake
import Testing
@testable import GitbayAPI
@testable import GitbayReconcile
@testable import GitbayState
@testable import GitbaySupport
@testable import GitbaySync
@testable import PushResolve

/// The behaviours DESIGN.md asks of a run, each against fake servers over real HTTP.
@Suite("Reconciler against fake servers")
struct ReconcilerTests {
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

    @Test("a first run registers every account once with the label; the next makes one request each and no write")
    func firstThenSteady() async throws {
        let servers = [try FakeGitbayServer(), try FakeGitbayServer()]
        let setup = try await Self.setUp(servers, users: ["alice", "carol"])
        let first = await setup.cli.run(["run", "--json"])
        #expect(first.code == 0, "\(first.err)")
        for (server, user) in zip(servers, ["alice", "carol"]) {
            let rows = server.devices(of: user)
            #expect(rows.count == 1)
            #expect(rows.first?.token == Self.token)
            #expect(rows.first?.label.hasPrefix("laptop [gbs-") == true)
        }
        #expect(try Self.accounts(first).values.allSatisfy { $0["action"] as? String == "added" })

        servers.forEach { $0.resetRequests() }
        let second = await setup.cli.run(["run", "--json"])
        #expect(second.code == 0)
        for server in servers {
            let requests = server.requests()
            #expect(requests.count == 1)
            #expect(requests.first?.status == 304)
            #expect(!requests.contains { $0.isWrite })
        }
        #expect(try Self.accounts(second).values.allSatisfy { $0["action"] as? String == "unchanged" && $0["requests"] as? Int == 1 })
    }

    @Test("a row the server deleted comes back on the next run")
    func healsDeletedRow() async throws {
        let server = try FakeGitbayServer()
        let setup = try await Self.setUp([server], users: ["alice"])
        _ = await setup.cli.run(["run"])
        let id = try #require(server.devices(of: "alice").first?.id)
        server.deleteDevice(id: id)
        let result = await setup.cli.run(["run", "--json"])
        #expect(result.code == 0)
        #expect(try Self.accounts(result)[setup.names[0]]?["action"] as? String == "re-added")
        #expect(server.devices(of: "alice").map(\.token) == [Self.token])
    }

    @Test("a rotation adds the new token before removing the old one, leaving exactly one row")
    func rotation() async throws {
        let server = try FakeGitbayServer()
        let setup = try await Self.setUp([server], users: ["alice"])
        _ = await setup.cli.run(["run"])
        #expect(await setup.cli.run(["device", "set-token"], stdin: Self.rotated).code == 0)
        server.resetRequests()
        let result = await setup.cli.run(["run", "--json"])
        #expect(result.code == 0, "\(result.err)")
        #expect(try Self.accounts(result)[setup.names[0]]?["action"] as? String == "rotated")
        let writes = server.requests().filter(\.isWrite).map { $0.argv.prefix(3).joined(separator: " ") }
        #expect(writes == ["notifications device add", "notifications device remove"])
        #expect(server.devices(of: "alice").map(\.token) == [Self.rotated])
    }

    @Test("another device's rows stay, even when our recorded id now names one of them")
    func neverRemovesForeignRows() async throws {
        let server = try FakeGitbayServer()
        let setup = try await Self.setUp([server], users: ["alice"])
        server.insertDevice(owner: "alice", token: "0123456789abcdef-phone", label: "phone")
        _ = await setup.cli.run(["run"])
        let ours = try #require(server.devices(of: "alice").first { $0.token == Self.token })
        // The server drops our row; the id goes to another device (ids are reused).
        server.deleteDevice(id: ours.id)
        let reused = server.insertDevice(owner: "alice", token: "fedcba9876543210-tablet", label: "tablet")
        #expect(reused == ours.id)
        server.resetRequests()
        let result = await setup.cli.run(["run"])
        #expect(result.code == 0)
        let tokens = Set(server.devices(of: "alice").map(\.token))
        #expect(tokens == ["0123456789abcdef-phone", "fedcba9876543210-tablet", Self.token])
        #expect(!server.requests().contains { $0.argv.starts(with: ["notifications", "device", "remove"]) })
    }

    @Test("two accounts on an instance that keeps one row per token: one holds it, the other is shadowed, then no writes")
    func sharedInstance() async throws {
        let server = try FakeGitbayServer()
        let setup = try await Self.setUp([server, server], users: ["alice", "bob"])
        let first = await setup.cli.run(["run", "--json"])
        #expect(first.code == 0, "\(first.err)")
        let outcomes = try Self.accounts(first)
        #expect(outcomes[setup.names[0]]?["condition"] as? String == "registered")
        #expect(outcomes[setup.names[1]]?["condition"] as? String == "shadowed")
        #expect(outcomes[setup.names[1]]?["shadowed_by"] as? String == setup.names[0])
        #expect(server.devices().map(\.owner) == ["alice"])

        for _ in 0..<2 {
            server.resetRequests()
            let steady = await setup.cli.run(["run"])
            #expect(steady.code == 0)
            #expect(!server.requests().contains { $0.isWrite })
            #expect(server.requests().count == 2)
        }
        let status = await setup.cli.run(["status"])
        #expect(status.out.contains("held by \(setup.names[0])"))

        // The user moves the token to bob: one handover (bob's add moves the row), then steady again.
        let moved = try #require(server.devices().first?.id)
        server.resetRequests()
        let prefer = await setup.cli.run(["prefer", setup.names[1]])
        #expect(prefer.code == 0, "\(prefer.err)")
        #expect(server.devices().map(\.owner) == ["bob"])
        #expect(server.devices().map(\.id) == [moved])
        #expect(server.requests().filter(\.isWrite).map(\.user) == ["bob"])
        server.resetRequests()
        #expect(await setup.cli.run(["run"]).code == 0)
        #expect(!server.requests().contains { $0.isWrite })
    }

    @Test("three accounts on one instance settle on one holder with one write, then none", arguments: [true, false])
    func threeAccounts(returnsID: Bool) async throws {
        let server = try FakeGitbayServer()
        server.returnsDeviceID = returnsID
        let setup = try await Self.setUp([server, server, server], users: ["alice", "bob", "dave"])
        server.resetRequests()
        let first = await setup.cli.run(["run", "--json"])
        #expect(first.code == 0, "\(first.err)")
        let conditions = try Self.accounts(first).mapValues { $0["condition"] as? String }
        #expect(conditions == [setup.names[0]: "registered", setup.names[1]: "shadowed", setup.names[2]: "shadowed"])
        #expect(server.devices().map(\.owner) == ["alice"])
        #expect(server.requests().filter(\.isWrite).map(\.user) == ["alice"])
        server.resetRequests()
        #expect(await setup.cli.run(["run"]).code == 0)
        #expect(server.requests().count == 3)
        #expect(server.requests().allSatisfy { $0.status == 304 })
    }

    @Test("a v1.32.0 server that returns no id: the row is found by its prefix")
    func serverWithoutIDs() async throws {
        let server = try FakeGitbayServer()
        server.returnsDeviceID = false
        let setup = try await Self.setUp([server], users: ["alice"])
        let first = await setup.cli.run(["run", "--json"])
        #expect(first.code == 0, "\(first.err)")
        let id = try #require(server.devices(of: "alice").first?.id)
        #expect(try Self.accounts(first)[setup.names[0]]?["device_id"] as? Int == id)
        server.resetRequests()
        #expect(await setup.cli.run(["run"]).code == 0)
        #expect(!server.requests().contains { $0.isWrite })
    }

    @Test("a row added but never recorded (a crash) is adopted, not duplicated")
    func adoptsUnrecordedRow() async throws {
        let server = try FakeGitbayServer()
        let setup = try await Self.setUp([server], users: ["alice"])
        _ = await setup.cli.run(["run"])
        let id = try #require(server.devices(of: "alice").first?.id)
        // Forget the record, as if the process died between `device add` and recording it.
        let store = try await setup.cli.store()
        let account = try #require(try await store.account(named: setup.names[0]))
        try await store.forgetRegistration(accountID: account.id, deviceID: id)
        server.resetRequests()
        let result = await setup.cli.run(["run", "--json"])
        #expect(try Self.accounts(result)[setup.names[0]]?["action"] as? String == "adopted")
        #expect(server.devices(of: "alice").map(\.id) == [id])
        #expect(!server.requests().contains { $0.isWrite })
    }

    @Test("pause removes our row and keeps the account; resume registers it again")
    func pauseResume() async throws {
        let server = try FakeGitbayServer()
        let setup = try await Self.setUp([server], users: ["alice"])
        _ = await setup.cli.run(["run"])
        #expect(await setup.cli.run(["pause", setup.names[0]]).code == 0)
        #expect(server.devices(of: "alice").isEmpty)
        server.resetRequests()
        #expect(await setup.cli.run(["run"]).code == 0)
        #expect(!server.requests().contains { $0.isWrite })
        #expect(await setup.cli.run(["resume", setup.names[0]]).code == 0)
        #expect(server.devices(of: "alice").map(\.token) == [Self.token])
    }

    @Test("a new label is pushed to the server on the next run, not skipped as unchanged")
    func labelChange() async throws {
        let server = try FakeGitbayServer()
        let setup = try await Self.setUp([server], users: ["alice"])
        _ = await setup.cli.run(["run"])
        _ = await setup.cli.run(["run"])
        #expect(await setup.cli.run(["device", "set-token", "--label", "desk"], stdin: Self.token).code == 0)
        #expect(await setup.cli.run(["run"]).code == 0)
        #expect(server.devices(of: "alice").first?.label.hasPrefix("desk [gbs-") == true)
        #expect(server.devices(of: "alice").count == 1)
    }
}
