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

@Suite("devices and devices remove, against the fake server")
struct DevicesCommandTests {
    static let firstToken = "0dd70ce0aaaabbbbccccdddd"
    static let secondToken = "c0ffee00aaaabbbbccccdddd"
    static let phoneToken = "aa11bb22eeeeffff00001111"

    /// alice signed in with this device registered under `secondToken` after a rotation, an old
    /// phone's row, and a leftover row of `firstToken` carrying this install's label.
    struct Scene {
        let server: FakeGitbayServer
        let cli: CLIHarness
        let account: String
        let ownID: Int
        let phoneID: Int
        let leftoverID: Int
    }

    static func scene() async throws -> Scene {
        let server = try FakeGitbayServer()
        let cli = try CLIHarness()
        let account = try await cli.login(server, "alice")
        _ = await cli.run(["device", "set-token", "--label", "laptop"], stdin: firstToken)
        _ = await cli.run(["run"])
        _ = await cli.run(["device", "set-token"], stdin: secondToken)
        #expect(await cli.run(["run"]).code == 0)
        let own = try #require(server.devices(of: "alice").first)
        #expect(own.token == secondToken)
        let phoneID = server.insertDevice(owner: "alice", token: phoneToken, label: "old phone")
        // As if a crash had come between adding the new token and removing the old one.
        let leftoverID = server.insertDevice(owner: "alice", token: firstToken, label: own.label)
        return Scene(server: server, cli: cli, account: account, ownID: own.id, phoneID: phoneID, leftoverID: leftoverID)
    }

    @Test("lists every row with this device's row and its old token's row marked, in one request")
    func listing() async throws {
        let scene = try await Self.scene()
        scene.server.resetRequests()
        let result = await scene.cli.run(["devices", "--json"])
        #expect(result.code == 0, "\(result.err)")
        let accounts = try #require(try result.json()["accounts"] as? [[String: Any]])
        #expect(accounts.count == 1)
        #expect(accounts[0]["account"] as? String == scene.account)
        #expect(accounts[0]["ok"] as? Bool == true)
        #expect(accounts[0]["error"] is NSNull)
        let rows = try #require(accounts[0]["devices"] as? [[String: Any]])
        #expect(rows.map { $0["id"] as? Int } == [scene.ownID, scene.phoneID, scene.leftoverID])
        #expect(rows.map { $0["this_device"] as? Bool } == [true, false, false])
        #expect(rows.map { $0["old_token"] as? Bool } == [false, false, true])
        #expect(rows.map { $0["token"] as? String } == ["c0ffee00…", "aa11bb22…", "0dd70ce0…"])
        #expect(rows[1]["label"] as? String == "old phone")
        #expect((rows[0]["added"] as? String)?.hasSuffix("Z") == true)
        #expect(rows.allSatisfy { Set($0.keys) == ["id", "label", "token", "added", "this_device", "old_token", "ours"] })
        #expect(scene.server.requests().map(\.argv) == [["notifications", "device", "list"]])

        let text = await scene.cli.run(["devices", scene.account])
        #expect(text.code == 0)
        let lines = text.out.split(separator: "\n").map(String.init)
        #expect(lines.first == "\(scene.account): 3 devices")
        #expect(lines.contains { $0.contains("c0ffee00…") && $0.hasSuffix("(this device)") })
        #expect(lines.contains { $0.contains("0dd70ce0…") && $0.hasSuffix("(this device, old token)") })
        #expect(lines.contains { $0.contains("old phone") && !$0.contains("this device") })
        // Times as `status` says them, from now; --json keeps RFC 3339.
        #expect(lines.dropFirst().allSatisfy { $0.contains(" ago") || $0.contains("added just now") }, "\(text.out)")
        #expect(!text.out.contains("Z "), "\(text.out)")
    }

    @Test("shows no token or API token in full")
    func secrets() async throws {
        let scene = try await Self.scene()
        let apiToken = scene.server.mintToken(for: "alice")
        #expect(await scene.cli.run(["login", scene.server.baseURL], stdin: apiToken).code == 0)
        var seen = ""
        for arguments in [["devices"], ["devices", "--json"], ["devices", "remove", scene.account, String(scene.phoneID), "--yes", "--json"]] {
            let result = await scene.cli.run(arguments)
            seen += result.out + result.err
        }
        #expect(!seen.isEmpty)
        for secret in [Self.firstToken, Self.secondToken, Self.phoneToken, apiToken, String(apiToken.dropFirst(3).prefix(12))] {
            #expect(!seen.contains(secret))
        }
    }

    @Test("one account's failure is reported for it alone; the others are listed; exit 1")
    func partialFailure() async throws {
        let first = try FakeGitbayServer()
        let second = try FakeGitbayServer()
        let cli = try CLIHarness()
        let alice = try await cli.login(first, "alice")
        let bob = try await cli.login(second, "bob")
        first.insertDevice(owner: "alice", token: Self.phoneToken, label: "phone")
        second.stop()
        first.resetRequests()

        let result = await cli.run(["devices", "--json"])
        #expect(result.code == 1)
        let accounts = try #require(try result.json()["accounts"] as? [[String: Any]])
        #expect(accounts.map { $0["account"] as? String } == [alice, bob])
        #expect(accounts.map { $0["ok"] as? Bool } == [true, false])
        #expect((accounts[0]["devices"] as? [[String: Any]])?.count == 1)
        #expect(accounts[1]["devices"] is NSNull)
        #expect((accounts[1]["error"] as? String)?.contains(bob) == true)
        #expect(result.err.contains("1 of 2 accounts failed: \(bob)"))
        #expect(first.requests().count == 1)
    }

    @Test("lists one account when named, and refuses an unknown one with 67")
    func oneAccount() async throws {
        let first = try FakeGitbayServer()
        let second = try FakeGitbayServer()
        let cli = try CLIHarness()
        let alice = try await cli.login(first, "alice")
        _ = try await cli.login(second, "bob")
        second.resetRequests()
        let result = await cli.run(["devices", alice, "--json"])
        #expect(result.code == 0)
        #expect((try result.json()["accounts"] as? [[String: Any]])?.map { $0["account"] as? String } == [alice])
        #expect(second.requests().isEmpty)

        let unknown = await cli.run(["devices", "carol@127.0.0.1:\(first.port)"])
        #expect(unknown.code == ExitCode.noSuchAccount.rawValue)
        #expect(unknown.err.contains("no account 'carol@127.0.0.1:\(first.port)'"))
    }

    @Test("removes another device's row with --yes and leaves the rest")
    func removeForeign() async throws {
        let scene = try await Self.scene()
        let result = await scene.cli.run(["devices", "remove", scene.account, String(scene.phoneID), "--yes", "--json"])
        #expect(result.code == 0, "\(result.err)")
        let json = try result.json()
        #expect(json["result"] as? String == "removed")
        #expect(json["id"] as? Int == scene.phoneID)
        #expect(json["label"] as? String == "old phone")
        #expect(json["token"] as? String == "aa11bb22…")
        #expect(json["this_device"] as? Bool == false)
        #expect(json["old_token"] as? Bool == false)
        #expect(scene.server.devices(of: "alice").map(\.id) == [scene.ownID, scene.leftoverID])
    }

    @Test("devices rm is devices remove: the row goes, the rest stays")
    func removeByShortName() async throws {
        let scene = try await Self.scene()
        let result = await scene.cli.run(["devices", "rm", scene.account, String(scene.phoneID), "--yes"])
        #expect(result.code == 0, "\(result.err)")
        #expect(result.out == "Removed device \(scene.phoneID) \"old phone\" (aa11bb22…) from \(scene.account).")
        #expect(scene.server.devices(of: "alice").map(\.id) == [scene.ownID, scene.leftoverID])
    }

    @Test("an id not on the account's list is already gone: exit 0, no write, another user's row untouched")
    func removeAbsent() async throws {
        let scene = try await Self.scene()
        let bobsRow = scene.server.insertDevice(owner: "bob", token: "b0b0b0b0ffffeeee", label: "bob's phone")
        for id in [bobsRow, 999] {
            scene.server.resetRequests()
            let result = await scene.cli.run(["devices", "remove", scene.account, String(id), "--yes"])
            #expect(result.code == 0, "\(result.err)")
            #expect(result.out.contains("Device \(id) is already gone from \(scene.account)"))
            #expect(!scene.server.requests().contains { $0.isWrite })
        }
        #expect(scene.server.devices(of: "bob").map(\.id) == [bobsRow])
        #expect(scene.server.devices(of: "alice").count == 3)
    }

    @Test("a 404 to the removal itself (the row went in between) is already gone, exit 0")
    func removeAnswered404() async throws {
        let scene = try await Self.scene()
        scene.server.inject(
            .status(404, body: #"{"protocol_version":1,"error":"no such device; see `notifications device list`","exit_code":3}"#),
            command: "notifications device remove"
        )
        let result = await scene.cli.run(["devices", "remove", scene.account, String(scene.phoneID), "--yes", "--json"])
        #expect(result.code == 0, "\(result.err)")
        #expect(try result.json()["result"] as? String == "already-gone")
        #expect(scene.server.requests().last?.argv.prefix(3) == ["notifications", "device", "remove"])
    }

    @Test("removing this device's own row says the next run adds it back, forgets the record, and the next run does")
    func removeOwn() async throws {
        let scene = try await Self.scene()
        let result = await scene.cli.run(["devices", "remove", scene.account, String(scene.ownID), "--yes"])
        #expect(result.code == 0, "\(result.err)")
        #expect(result.out.contains("Removed device \(scene.ownID)"))
        #expect(result.out.contains("the next `gitbay-sync run` adds it back unless you pause the account"))
        #expect(!scene.server.devices(of: "alice").contains { $0.id == scene.ownID })
        let store = try await scene.cli.store()
        let account = try #require(try await store.account(named: scene.account))
        #expect(try await store.registrations(ofAccount: account.id).isEmpty)

        let run = await scene.cli.run(["run", "--json"])
        #expect(run.code == 0)
        #expect(scene.server.devices(of: "alice").contains { $0.token == Self.secondToken })
    }

    @Test("without --yes and no terminal: a usage error, exit 64, nothing asked or removed")
    func refusesWithoutTerminal() async throws {
        let scene = try await Self.scene()
        scene.server.resetRequests()
        let result = await scene.cli.run(["devices", "remove", scene.account, String(scene.phoneID)], confirm: true)
        #expect(result.code == ExitCode.usage.rawValue)
        #expect(result.err.contains("--yes"))
        #expect(result.err.contains("Usage: gitbay-sync devices remove"))
        #expect(scene.server.requests().isEmpty)
        #expect(scene.server.devices(of: "alice").count == 3)
    }

    @Test("on a terminal it asks: no keeps the row (exit 1), yes removes it", arguments: [false, true])
    func confirmation(_ answer: Bool) async throws {
        let scene = try await Self.scene()
        let result = await scene.cli.run(["devices", "remove", scene.account, String(scene.phoneID)], terminal: true, confirm: answer)
        #expect(result.code == (answer ? 0 : 1))
        #expect(scene.server.devices(of: "alice").contains { $0.id == scene.phoneID } == !answer)
    }

    @Test("a device id that is not a positive number is a usage error")
    func badID() async throws {
        let cli = try CLIHarness()
        for id in ["x", "0", "-3"] {
            let result = await cli.run(["devices", "remove", "alice@gitbay.org", id, "--yes"])
            #expect(result.code == ExitCode.usage.rawValue)
        }
    }
}
