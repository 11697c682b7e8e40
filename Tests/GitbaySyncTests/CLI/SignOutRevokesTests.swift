import Foundation
import GitbayFake
import TestSupport
import Testing

@testable import GitbayState
@testable import GitbaySupport
@testable import GitbaySync

/// What `remove-account` says of the API token: revoked on the server when its name is known,
/// else still valid there, with the commands that revoke it by hand.
@Suite("remove-account revokes the API token")
struct SignOutRevokesTests {
    /// A CLI with alice signed in on `server` with `token`, given `--token-name name` when named.
    static func signedIn(_ server: FakeGitbayServer, token: String, name: String?) async throws -> (CLIHarness, String) {
        let cli = try CLIHarness()
        let login = await cli.run(["login", server.baseURL] + (name.map { ["--token-name", $0] } ?? []), stdin: token)
        #expect(login.code == 0, "\(login.err)")
        return (cli, "alice@127.0.0.1:\(server.port)")
    }

    @Test("a named token is revoked on the server, and the text and --json say so")
    func namedTokenRevoked() async throws {
        let server = try FakeGitbayServer()
        let token = server.mintToken(for: "alice", name: "laptop-sync")
        let (cli, account) = try await Self.signedIn(server, token: token, name: "laptop-sync")
        let result = await cli.run(["remove-account", account, "--json"])
        #expect(result.code == 0, "\(result.err)")
        let json = try result.json()
        #expect(json["token_revoked"] as? Bool == true)
        #expect(json["token_name"] as? String == "laptop-sync")
        #expect(!server.accepts(token))
        #expect(!(result.out + result.err).contains(token))

        let other = server.mintToken(for: "alice", name: "desk-sync")
        let (again, _) = try await Self.signedIn(server, token: other, name: "desk-sync")
        let text = await again.run(["remove-account", account])
        #expect(text.out.contains("the API token desk-sync is revoked on the server and deleted"), "\(text.out)")
        #expect(!server.accepts(other))
    }

    @Test("a pasted token without a name is deleted here, and the message says it is still valid and how to revoke it")
    func unnamedTokenStillValid() async throws {
        let server = try FakeGitbayServer()
        let token = server.mintToken(for: "alice")
        let (cli, account) = try await Self.signedIn(server, token: token, name: nil)
        let result = await cli.run(["remove-account", account])
        #expect(result.code == 0, "\(result.err)")
        #expect(result.out.contains("still valid on the server"), "\(result.out)")
        #expect(result.out.contains("`ssh git@127.0.0.1 token list`"), "\(result.out)")
        #expect(result.out.contains("`ssh git@127.0.0.1 token revoke '<name>'`"), "\(result.out)")
        #expect(server.accepts(token))

        let (other, _) = try await Self.signedIn(server, token: token, name: nil)
        let json = try await other.run(["remove-account", account, "--json"]).json()
        #expect(json["token_revoked"] as? Bool == false)
        #expect(json["token_name"] is NSNull)
    }

    @Test("--force with the server down deletes here and prints the command that revokes the token by hand")
    func forcedPrintsRevokeCommand() async throws {
        let server = try FakeGitbayServer()
        let token = server.mintToken(for: "alice", name: "laptop-sync")
        let (cli, account) = try await Self.signedIn(server, token: token, name: "laptop-sync")
        server.isDown = true
        let result = await cli.run(["remove-account", account, "--force"])
        #expect(result.code == 0, "\(result.err)")
        #expect(
            result.out.contains(
                "The API token laptop-sync is still valid on the server: revoke it with `ssh git@127.0.0.1 token revoke laptop-sync`."),
            "\(result.out)")
        server.isDown = false
        #expect(server.accepts(token))
    }

    @Test("a revocation the server fails keeps the account removing (exit 69) and says what is left")
    func failedRevocationKept() async throws {
        let server = try FakeGitbayServer()
        let token = server.mintToken(for: "alice", name: "laptop-sync")
        let (cli, account) = try await Self.signedIn(server, token: token, name: "laptop-sync")
        server.inject(.status(503, body: #"{"protocol_version":1,"error":"store busy"}"#), command: "token revoke", times: 10)
        let result = await cli.run(["remove-account", account, "--json"])
        #expect(result.code == 69, "\(result.err)")
        #expect(result.err.contains("the API token laptop-sync could not be revoked on the server"), "\(result.err)")
        let json = try result.json()
        #expect(json["result"] as? String == "kept")
        #expect(json["token_revoked"] as? Bool == false)
        #expect(json["token_name"] as? String == "laptop-sync")
        server.clearFaults()
        let run = await cli.run(["run", "--now"])
        #expect(run.code == 0, "\(run.err)")
        #expect(!server.accepts(token))
        #expect(try await cli.store().accounts().isEmpty)
    }

    @Test("a wrong --token-name: the token still works after its name is revoked, so it is kept, and --force says it is still valid")
    func wrongNameSaidTrue() async throws {
        let server = try FakeGitbayServer()
        server.mintToken(for: "alice", name: "desk-sync")
        let token = server.mintToken(for: "alice", name: "laptop-sync")
        let (cli, account) = try await Self.signedIn(server, token: token, name: "desk-sync")
        let result = await cli.run(["remove-account", account, "--json"])
        #expect(result.code == 69, "\(result.err)")
        let json = try result.json()
        #expect(json["result"] as? String == "kept")
        #expect(json["token_revoked"] as? Bool == false)
        #expect(json["token_name"] as? String == "desk-sync")
        let error = try #require(json["error"] as? String)
        #expect(error.contains("the token this device held still works"), "\(error)")
        #expect(server.accepts(token))
        #expect(try await cli.store().accounts().count == 1, "the token's record stays until the user decides")

        let forced = await cli.run(["remove-account", account, "--force"])
        #expect(forced.code == 0, "\(forced.err)")
        #expect(!forced.out.contains("is revoked on the server"), "\(forced.out)")
        #expect(forced.out.contains("The API token this device held is still valid on the server"), "\(forced.out)")
        #expect(forced.out.contains("`ssh git@127.0.0.1 token list`"), "\(forced.out)")
        #expect(server.accepts(token))
    }

    @Test("--force with the current token refused names the earlier token still valid, not the refused one")
    func forcedNamesTheLiveToken() async throws {
        let server = try FakeGitbayServer()
        for json in [true, false] {
            let current = "gitbay-sync-laptop-gbs-\(json ? "000001" : "000003")"
            let earlier = "gitbay-sync-laptop-gbs-\(json ? "000002" : "000004")"
            let token = server.mintToken(for: "alice", name: current)
            let successor = server.mintToken(for: "alice", name: earlier)
            let (cli, account) = try await Self.signedIn(server, token: token, name: current)
            let id = try #require(try await cli.store().accounts().first?.id)
            try await cli.store().recordStaleTokenNames([earlier], ofAccount: id)
            server.revokeToken(token)
            let result = await cli.run(["remove-account", account, "--force"] + (json ? ["--json"] : []))
            #expect(result.code == 0, "\(result.err)")
            #expect(server.accepts(successor))
            if json {
                let json = try result.json()
                #expect(json["token_revoked"] as? Bool == true)
                #expect(json["tokens_left"] as? [String] == [earlier])
            } else {
                #expect(!result.out.contains("\(current) is still valid"), "\(result.out)")
                #expect(result.out.contains("`ssh git@127.0.0.1 token revoke \(earlier)`"), "\(result.out)")
            }
        }
    }

    @Test(
        "login --ssh, then remove-account: the minted token is refused by the server afterwards",
        .enabled(if: SSHFront.missingTools == nil, "needs sshd, ssh and ssh-keygen: run scripts/install-deps"))
    func mintedTokenRevoked() async throws {
        let server = try FakeGitbayServer()
        let front = try await SSHFront.start(fakePort: server.port, users: ["alice"])
        defer {
            front.stop()
            server.stop()
        }
        let cli = try CLIHarness()
        let ssh = [SSHProgram.variable: [front.sshPath, "-F", front.configFile(for: "alice")].map(ShellWords.quoted).joined(separator: " ")]
        let destination = front.loginUser == "git" ? [] : [front.destination]
        let login = await cli.run(["login", server.baseURL, "--ssh"] + destination, extraEnvironment: ssh)
        #expect(login.code == 0, "\(login.err)")
        let minted = try #require(server.tokens(of: "alice").first)
        let account = try #require(try await cli.store().accounts().first)
        #expect(try await cli.store().apiTokenDetails(ofAccount: account.id)?.lifetime == .seconds(90 * 86_400))

        let result = await cli.run(["remove-account", account.name, "--json"])
        #expect(result.code == 0, "\(result.err)")
        #expect(try result.json()["token_name"] as? String == minted.name)
        #expect(!server.accepts(minted.value), "the minted token still works after sign-out")
    }

    @Test(
        "a token minted over ssh to a port of its own: --force gives the revoke command for that destination",
        .enabled(if: SSHFront.missingTools == nil, "needs sshd, ssh and ssh-keygen: run scripts/install-deps"))
    func forcedRemovalNamesTheDestination() async throws {
        let server = try FakeGitbayServer()
        let front = try await SSHFront.start(fakePort: server.port, users: ["alice"])
        defer { front.stop() }
        let cli = try CLIHarness()
        let ssh = [SSHProgram.variable: [front.sshPath, "-F", front.configFile(for: "alice")].map(ShellWords.quoted).joined(separator: " ")]
        let destination = "\(front.destination):\(front.port)"
        let login = await cli.run(["login", server.baseURL, "--ssh", destination], extraEnvironment: ssh)
        #expect(login.code == 0, "\(login.err)")
        let minted = try #require(server.tokens(of: "alice").first)
        let account = try #require(try await cli.store().accounts().first)
        #expect(account.sshDestination == destination)
        server.stop()

        let result = await cli.run(["remove-account", account.name, "--force"])
        #expect(result.code == 0, "\(result.err)")
        let revoke = "ssh -p \(front.port) \(front.destination) token revoke \(minted.name)"
        #expect(result.out.contains(revoke), "\(result.out)")
    }
}
