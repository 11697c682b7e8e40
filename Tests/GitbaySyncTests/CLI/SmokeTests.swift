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

@Suite("Command line, end to end in process")
struct SmokeTests {
    @Test("status on a fresh machine says there is no database and how to start, and creates none")
    func freshStatus() async throws {
        let cli = try CLIHarness()
        let result = await cli.run(["status"])
        #expect(result.code == ExitCode.noDatabase.rawValue)
        #expect(result.err.contains("no state database at \(cli.databasePath)"))
        #expect(result.err.contains("gitbay-sync login <instance-url>"))
        #expect(!FileManager.default.fileExists(atPath: cli.folder.path + "/state"))
    }

    @Test("login, set a token, run: the account is registered once, then steady")
    func firstRun() async throws {
        let server = try FakeGitbayServer()
        let cli = try CLIHarness()
        let name = try await cli.login(server, "alice")
        #expect(await cli.run(["device", "set-token", "--label", "laptop"], stdin: "c0ffee00aaaabbbbccccdddd").code == 0)
        let first = await cli.run(["run", "--json"])
        #expect(first.code == 0, "\(first.err)")
        let accounts = try #require(try first.json()["accounts"] as? [[String: Any]])
        #expect(accounts.first?["account"] as? String == name)
        #expect(accounts.first?["action"] as? String == "added")
        #expect(server.devices(of: "alice").count == 1)
        #expect(server.devices(of: "alice").first?.label.hasPrefix("laptop [gbs-") == true)
    }
}
