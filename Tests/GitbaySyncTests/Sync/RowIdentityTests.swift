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

/// What the command line says about rows whose display misleads: `status`, `doctor` and
/// `devices` go by record and marker, and `set-token` refuses a token the display would cut
/// inside a character. The runs themselves are tested through `Reconciler` in GitbayReconcileTests.
@Suite("Row identity, end to end")
struct RowIdentityTests {
    static func names(_ result: CLIResult) throws -> [String: [String: Any]] {
        try RunOutcomeTests.accounts(result)
    }

    @Test("after a new token sharing the old one's first 8 bytes, status says pending until a run registers it; then doctor passes")
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
        #expect(await cli.run(["doctor"]).code == 0)
    }

    @Test("devices never calls another device's row under a reused id ours")
    func reusedIDWithShortToken() async throws {
        let server = try FakeGitbayServer()
        let cli = try CLIHarness()
        _ = try await cli.login(server, "alice")
        #expect(await cli.run(["device", "set-token"], stdin: RunOutcomeTests.token).code == 0)
        #expect(await cli.run(["run"]).code == 0)
        let ours = try #require(server.devices().first)
        server.deleteDevice(id: ours.id)
        #expect(server.insertDevice(owner: "alice", token: "tab", label: "tablet") == ours.id)

        let listed = try await cli.run(["devices", "--json"]).json()
        let rows = try #require(((listed["accounts"] as? [[String: Any]])?.first?["devices"]) as? [[String: Any]])
        #expect(rows.map { $0["ours"] as? Bool } == [false])
        #expect(rows.map { $0["this_device"] as? Bool } == [false])
    }

    @Test("a token cut inside a character by the server's display is refused at set-token")
    func nonASCIIToken() async throws {
        let cli = try CLIHarness()
        let result = await cli.run(["device", "set-token"], stdin: "abcdef€xyz0123")
        #expect(result.code == ExitCode.dataError.rawValue)
        #expect(result.err.contains("printable ASCII"))
    }
}
