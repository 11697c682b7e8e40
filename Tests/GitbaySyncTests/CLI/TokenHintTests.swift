import Foundation
import GitbayFake
import TestSupport
import Testing

@testable import GitbaySync

/// Every hint that says where an API token comes from gives the whole command to mint one,
/// the instance's host filled in, and says that `login --ssh` mints one itself.
@Suite("Where tokens come from")
struct TokenHintTests {
    @Test("the hidden prompt says where to get a token before it asks, and mentions --ssh")
    func prompt() async throws {
        let server = try FakeGitbayServer()
        defer { server.stop() }
        let cli = try CLIHarness()

        let result = await cli.run(["login", server.baseURL], stdin: server.mintToken(for: "alice"), terminal: true)

        #expect(result.code == 0, "\(result.err)")
        #expect(
            result.prompts == [
                "Paste a full-scope API token for \(server.baseURL). Mint one with `ssh git@127.0.0.1 token create --name gitbay-sync --scope full`, "
                    + "or let gitbay-sync mint its own with `gitbay-sync login \(server.baseURL) --ssh`.\nAPI token (input hidden): "
            ])
    }

    @Test("a refused or read-only token's message gives the mint command with the host, and --ssh")
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
            #expect(result.err.contains("`gitbay-sync login \(server.baseURL) --ssh`"), "\(result.err)")
        }
    }

    @Test("login --help and the man page give the whole mint command and say how --ssh mints one")
    func help() async throws {
        let cli = try CLIHarness()
        let help = await cli.run(["login", "--help"])
        let man = await cli.run(["man"])

        #expect(help.code == 0)
        let flat = help.out.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        #expect(flat.contains("`ssh git@HOST token create --name gitbay-sync --scope full`"), "\(help.out)")
        #expect(
            flat.contains(
                "gitbay-sync login [--ssh] [--ttl DURATION] [--token-name NAME] [--token-store keyring|database] <instance-url> [<ssh-destination>]"),
            "\(help.out)")
        #expect(flat.contains("`ssh git@HOST -- token create --name <name> --scope full --ttl <lifetime> --json`"))
        #expect(flat.contains("$GITBAY_SYNC_SSH"))
        #expect(man.out.contains("token create"))
        #expect(man.out.contains("GITBAY_SYNC_SSH"))
    }

    @Test("--token-name records a pasted token's name with the account, shown by status and accounts")
    func pastedName() async throws {
        let server = try FakeGitbayServer()
        defer { server.stop() }
        let cli = try CLIHarness()

        let login = await cli.run(["login", server.baseURL, "--token-name", "my laptop", "--json"], stdin: server.mintToken(for: "alice"))
        let accounts = await cli.run(["accounts", "--json"])
        let status = await cli.run(["status"])

        #expect(login.code == 0, "\(login.err)")
        #expect(try login.json()["token_name"] as? String == "my laptop")
        #expect(try login.json()["token_expires_at"] is NSNull)
        let row = try #require((try accounts.json()["accounts"] as? [[String: Any]])?.first)
        #expect(row["token_name"] as? String == "my laptop")
        #expect(row["token_expires_at"] is NSNull)
        #expect(status.out.contains("    API token: my laptop\n") || status.out.hasSuffix("    API token: my laptop"), "\(status.out)")
    }

    @Test("an account that signed in over an SSH destination of its own is sent back there by every sign-in hint")
    func ownDestination() async throws {
        let server = try FakeGitbayServer()
        defer { server.stop() }
        let cli = try CLIHarness()
        let token = server.mintToken(for: "alice")
        #expect(await cli.run(["login", server.baseURL], stdin: token).code == 0)
        #expect(await cli.run(["device", "set-token"], stdin: "aa11").code == 0)
        let store = try await cli.store()
        let account = try #require(try await store.accounts().first)
        // What `login --ssh git@127.0.0.1:2222` keeps (SignOutRevokesTests signs in so over a real sshd).
        try await store.setSSHDestination("git@127.0.0.1:2222", ofAccount: account.id)
        server.revokeToken(token)
        let login = "`gitbay-sync login \(server.baseURL) --ssh git@127.0.0.1:2222` mints one"
        let mint = "mint one with `ssh -p 2222 git@127.0.0.1 token create --name gitbay-sync --scope full`"

        let failed = await cli.run(["run"])
        let skipped = await cli.run(["run"])
        let status = await cli.run(["status"])
        let doctor = await cli.run(["doctor"])

        #expect(failed.code == ExitCode.partialFailure.rawValue, "\(failed.err)")
        for said in [failed.out + failed.err, skipped.out + skipped.err, status.out, doctor.out] {
            #expect(said.contains(login) && said.contains(mint), "\(said)")
            #expect(!said.contains("ssh git@127.0.0.1 token create"), "\(said)")
        }
    }
}
