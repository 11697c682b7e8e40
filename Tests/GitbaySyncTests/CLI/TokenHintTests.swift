import Foundation
import GitbayFake
import TestSupport
import Testing

@testable import GitbaySync

/// Every hint that says where an API token comes from gives the whole command to mint one,
/// the instance's host filled in.
@Suite("Where tokens come from")
struct TokenHintTests {
    @Test("the hidden prompt says where to get a token before it asks")
    func prompt() async throws {
        let server = try FakeGitbayServer()
        defer { server.stop() }
        let cli = try CLIHarness()

        let result = await cli.run(["login", server.baseURL], stdin: server.mintToken(for: "alice"), terminal: true)

        #expect(result.code == 0, "\(result.err)")
        #expect(
            result.prompts == [
                "Paste a full-scope API token for \(server.baseURL). Mint one with `ssh git@127.0.0.1 token create --name gitbay-sync --scope full`."
                    + "\nAPI token (input hidden): "
            ])
    }

    @Test("a refused or read-only token's message gives the mint command with the host")
    func refusals() async throws {
        let server = try FakeGitbayServer()
        defer { server.stop() }
        let cli = try CLIHarness()
        let mint = "`ssh git@127.0.0.1 token create --name gitbay-sync --scope full`"

        let refused = await cli.run(["login", server.baseURL], stdin: "gb_" + String(repeating: "0", count: 40))
        let readOnly = await cli.run(["login", server.baseURL], stdin: server.mintToken(for: "alice", scope: .read))

        for result in [refused, readOnly] {
            #expect(result.code == ExitCode.denied.rawValue, "\(result.err)")
            #expect(result.err.contains("Mint a new one with \(mint)"), "\(result.err)")
        }
    }
}
