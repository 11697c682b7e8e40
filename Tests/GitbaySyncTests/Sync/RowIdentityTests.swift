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

/// The five ways the token display once misled gitbay-sync, each replayed against the fake
/// server: rows are this device's by record or marker, never by what the display shows.
@Suite("Row identity, end to end")
struct RowIdentityTests {
    static func names(_ result: CLIResult) throws -> [String: [String: Any]] {
        try RunOutcomeTests.accounts(result)
    }

    @Test("a rotation between tokens sharing their first 8 bytes leaves one row, of the new token, and then writes nothing")
    func rotationSharingPrefix() async throws {
        let server = try FakeGitbayServer()
        let cli = try CLIHarness()
        let name = try await cli.login(server, "alice")
        #expect(await cli.run(["device", "set-token"], stdin: "https://push.example.org/up/AAAA1").code == 0)
        #expect(await cli.run(["run"]).code == 0)
        #expect(await cli.run(["device", "set-token"], stdin: "https://push.example.org/up/BBBB2").code == 0)
        let status = await cli.run(["status", "--json"])
        #expect(status.out.contains("\"condition\":\"pending\""), "a new token is not registered until a run says so")
        let rotated = await cli.run(["run", "--json"])
        #expect(rotated.code == 0, "\(rotated.err)")
        #expect(try Self.names(rotated)[name]?["action"] as? String == "rotated")
        #expect(server.devices().map(\.token) == ["https://push.example.org/up/BBBB2"])
        server.resetRequests()
        #expect(await cli.run(["run"]).code == 0)
        #expect(!server.requests().contains { $0.isWrite })
        #expect(await cli.run(["doctor"]).code == 0)
    }

    @Test("another device's row under a reused id survives pause, device clear and remove-account, and is never called ours")
    func reusedIDWithShortToken() async throws {
        let server = try FakeGitbayServer()
        let cli = try CLIHarness()
        let name = try await cli.login(server, "alice")
        #expect(await cli.run(["device", "set-token"], stdin: RunOutcomeTests.token).code == 0)
        #expect(await cli.run(["run"]).code == 0)
        let ours = try #require(server.devices().first)
        // APNs reaps our row; the tablet registers a short token and gets the same id.
        server.deleteDevice(id: ours.id)
        let tablet = server.insertDevice(owner: "alice", token: "tab", label: "tablet")
        #expect(tablet == ours.id)

        let listed = try await cli.run(["devices", "--json"]).json()
        let rows = try #require(((listed["accounts"] as? [[String: Any]])?.first?["devices"]) as? [[String: Any]])
        #expect(rows.map { $0["ours"] as? Bool } == [false])
        #expect(rows.map { $0["this_device"] as? Bool } == [false])

        #expect(await cli.run(["pause", name]).code == 0)
        #expect(await cli.run(["resume", name]).code == 0)
        #expect(await cli.run(["device", "clear"]).code == 0)
        #expect(await cli.run(["device", "set-token"], stdin: RunOutcomeTests.token).code == 0)
        #expect(await cli.run(["run"]).code == 0)
        #expect(await cli.run(["remove-account", name]).code == 0)
        #expect(server.devices().map(\.token) == ["tab"])
        #expect(!server.requests().contains { $0.argv.starts(with: ["notifications", "device", "remove", String(tablet)]) })
    }

    @Test("v1.32.0 with an 8-byte token: settles with no writes, and sign-out leaves no row")
    func eightByteTokenOnOldServer() async throws {
        let server = try FakeGitbayServer()
        server.returnsDeviceID = false
        let cli = try CLIHarness()
        let name = try await cli.login(server, "alice")
        #expect(await cli.run(["device", "set-token"], stdin: "DEVTOKEN").code == 0)
        let first = await cli.run(["run", "--json"])
        #expect(first.code == 0, "\(first.err)")
        #expect(try Self.names(first)[name]?["condition"] as? String == "registered")
        server.resetRequests()
        let steady = await cli.run(["run", "--json"])
        #expect(steady.code == 0, "\(steady.err)")
        #expect(!server.requests().contains { $0.isWrite })
        let removed = await cli.run(["remove-account", name, "--json"])
        #expect(removed.code == 0, "\(removed.err)")
        #expect(server.devices().isEmpty)
    }

    @Test("a token cut inside a character by the server's display is refused at set-token")
    func nonASCIIToken() async throws {
        let cli = try CLIHarness()
        let result = await cli.run(["device", "set-token"], stdin: "abcdef€xyz0123")
        #expect(result.code == ExitCode.dataError.rawValue)
        #expect(result.err.contains("printable ASCII"))
    }

    @Test("two accounts of one instance settle on one holder with no writes, also after the holder's row is reaped", arguments: [true, false])
    func oneHolderAfterReap(returnsID: Bool) async throws {
        let server = try FakeGitbayServer()
        server.returnsDeviceID = returnsID
        let cli = try CLIHarness()
        let alice = try await cli.login(server, "alice")
        let bob = try await cli.login(server, "bob")
        #expect(await cli.run(["device", "set-token"], stdin: RunOutcomeTests.token).code == 0)
        #expect(await cli.run(["run"]).code == 0)
        server.resetRequests()
        #expect(await cli.run(["run"]).code == 0)
        #expect(!server.requests().contains { $0.isWrite })

        server.deleteDevice(id: try #require(server.devices().first?.id))
        server.resetRequests()
        let healed = await cli.run(["run", "--json"])
        #expect(healed.code == 0, "\(healed.err)")
        let outcomes = try Self.names(healed)
        #expect(outcomes[alice]?["action"] as? String == "re-added")
        #expect(outcomes[bob]?["condition"] as? String == "shadowed")
        #expect(server.requests().filter(\.isWrite).map(\.user) == ["alice"])
        #expect(server.devices().map(\.owner) == ["alice"])
        for _ in 0..<2 {
            server.resetRequests()
            #expect(await cli.run(["run"]).code == 0)
            #expect(!server.requests().contains { $0.isWrite })
        }
    }
}
