import Foundation
import GitbayFake
import TestSupport
import Testing

@testable import GitbaySync

@Suite("run --dry-run")
struct DryRunCommandTests {
    @Test("says what the run would do, account by account, in text and JSON; sends no write; the run then does it")
    func dryRunThenRun() async throws {
        let server = try FakeGitbayServer()
        let cli = try CLIHarness()
        let alice = try await cli.login(server, "alice")
        #expect(await cli.run(["device", "set-token"], stdin: "c0ffee00aaaabbbbccccdddd").code == 0)
        server.resetRequests()

        let text = await cli.run(["run", "--dry-run"])
        #expect(text.code == 0, "\(text.err)")
        #expect(text.out.contains("\(alice)  would add this device's token"), "\(text.out)")
        #expect(text.out.contains("Dry run: only lists were sent and nothing was written"))
        let json = try await cli.run(["run", "--dry-run", "--json"]).json()
        #expect(json["dry_run"] as? Bool == true)
        let account = try #require((json["accounts"] as? [[String: Any]])?.first)
        #expect((account["actions"] as? [[String: Any]])?.map { $0["action"] as? String } == ["add"])
        #expect(server.requests().allSatisfy { !$0.isWrite } && server.devices().isEmpty)

        #expect(await cli.run(["run"]).code == 0)
        #expect(server.devices().count == 1)
        let after = await cli.run(["run", "--dry-run"])
        #expect(after.out.contains("\(alice)  nothing to do"), "\(after.out)")
    }

    @Test("an account whose list fails is said as cannot tell, with the server's failure, in text and JSON; exit 1")
    func listFails() async throws {
        let server = try FakeGitbayServer()
        let cli = try CLIHarness()
        let alice = try await cli.login(server, "alice")
        #expect(await cli.run(["device", "set-token"], stdin: "c0ffee00aaaabbbbccccdddd").code == 0)
        server.inject(.status(502, body: "<html>bad gateway</html>"), command: "notifications device", times: 10)

        let text = await cli.run(["run", "--dry-run"])
        #expect(text.code == 1, "\(text.err)")
        let line = try #require(text.out.split(separator: "\n").first { $0.hasPrefix(alice) })
        #expect(line.contains("cannot tell: ") && line.contains("502"), "\(line)")
        let json = try await cli.run(["run", "--dry-run", "--json"]).json()
        #expect(json["ok"] as? Bool == false)
        let account = try #require((json["accounts"] as? [[String: Any]])?.first)
        #expect((account["error"] as? String)?.contains("502") == true, "\(account)")
        #expect(server.devices().isEmpty)
    }

    @Test("cannot be combined with --every or --unattended")
    func refusedCombinations() async throws {
        let cli = try CLIHarness()
        for arguments in [["run", "--dry-run", "--every", "15m"], ["run", "--dry-run", "--unattended"]] {
            let result = await cli.run(arguments)
            #expect(result.code == 64)
            #expect(result.err.contains("--dry-run cannot be combined with --every or --unattended"), "\(result.err)")
        }
    }
}
