import Foundation
import GitbayFake
import Testing

@testable import GitbaySync

/// `login` says what it is checking while a person watches standard error, and nothing of it
/// reaches a pipe or `--json`.
@Suite("Login progress")
struct LoginProgressTests {
    @Test("on a terminal, login says it checks the token and then registers the device; through a pipe or with --json it says nothing")
    func saysWhatItChecks() async throws {
        let server = try FakeGitbayServer()
        let cli = try CLIHarness()
        #expect(await cli.run(["device", "set-token"], stdin: "c0ffee00aaaabbbbccccdddd").code == 0)
        let watched = await cli.run(["login", server.baseURL], stdin: server.mintToken(for: "alice")) { $0.console.errorIsTerminal = true }
        #expect(watched.code == 0)
        #expect(watched.err.contains("checking the API token with \(server.baseURL)"), "\(watched.err)")
        #expect(watched.err.contains("signed in as alice; registering this device"), "\(watched.err)")

        let piped = await cli.run(["login", server.baseURL], stdin: server.mintToken(for: "bob"))
        #expect(piped.code == 0)
        #expect(!piped.err.contains("checking"), "\(piped.err)")
        let json = await cli.run(["login", server.baseURL, "--json"], stdin: server.mintToken(for: "carol")) {
            $0.console.errorIsTerminal = true
        }
        #expect(json.code == 0)
        #expect(!json.err.contains("checking"), "\(json.err)")
    }
}
