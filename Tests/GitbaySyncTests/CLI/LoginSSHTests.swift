import Foundation
import GitbayFake
import TestSupport
import Testing

@testable import GitbayReconcile
@testable import GitbayState
@testable import GitbaySupport
@testable import GitbaySync

/// `login --ssh` against a real sshd before the fake server, on 127.0.0.1: gitbay-sync mints
/// its own token over SSH, as gitbay's CLI does, and signs in with it.
@Suite("login --ssh mints its own token", .enabled(if: SSHFront.missingTools == nil, "needs sshd, ssh and ssh-keygen: run scripts/install-deps"))
struct LoginSSHTests {
    /// The fake server, the SSH front before it (keys for alice and bob) and a CLI whose
    /// `$GITBAY_SYNC_SSH` is the front's ssh with alice's key.
    struct Scene {
        let server: FakeGitbayServer
        let front: SSHFront
        let cli: CLIHarness

        static func make() async throws -> Scene {
            let server = try FakeGitbayServer()
            let front = try await SSHFront.start(fakePort: server.port, users: ["alice", "bob"])
            return Scene(server: server, front: front, cli: try CLIHarness())
        }

        func stop() {
            front.stop()
            server.stop()
        }

        /// `$GITBAY_SYNC_SSH` for ssh with `config`.
        func ssh(config: String) -> [String: String] {
            [SSHProgram.variable: [front.sshPath, "-F", config].map(ShellWords.quoted).joined(separator: " ")]
        }

        /// `login <server> --ssh [destination] <more>` as alice (or with `config`).
        func login(_ more: [String] = [], destination: String? = nil, config: String? = nil) async -> CLIResult {
            let arguments = ["login", server.baseURL, "--ssh"] + (destination.map { [$0] } ?? []) + more
            return await cli.run(arguments, extraEnvironment: ssh(config: config ?? front.configFile(for: "alice")))
        }

        /// The destination to name: none when the front logs in `git`, as a gitbay server does.
        var destination: String? { front.loginUser == "git" ? nil : front.destination }

        var databaseExists: Bool { FileManager.default.fileExists(atPath: cli.databasePath) }
    }

    @Test("signs in with a token minted over SSH, named for the install, 90 days long; the token is printed nowhere")
    func mintsAndSignsIn() async throws {
        let scene = try await Scene.make()
        defer { scene.stop() }
        let before = Date()

        let login = await scene.login(["--json", "-vvv"], destination: scene.destination)

        #expect(login.code == 0, "\(login.err)")
        let minted = try #require(scene.server.tokens(of: "alice").first)
        #expect(scene.server.tokens(of: "alice").count == 1)
        #expect(minted.scope == .full)
        let store = try await scene.cli.store()
        let device = try await store.device()
        #expect(minted.name == TokenName.forInstall(label: device.label, installMarker: device.installMarker))
        #expect(minted.name.hasPrefix("gitbay-sync-") && minted.name.hasSuffix("-" + device.installMarker), "\(minted.name)")
        let lifetime = try #require(minted.expiresAt).timeIntervalSince(minted.createdAt)
        #expect(abs(lifetime - 90 * 86_400) < 0.002, "\(lifetime)")
        let command = try #require(scene.server.sshCommands().first)
        #expect(command.argv == ["token", "create", "--name", minted.name, "--scope", "full", "--ttl", "90d", "--json"])
        #expect(command.stdin == nil || command.stdin == "", "nothing on ssh's stdin")

        let account = try #require(try await store.account(named: "alice@127.0.0.1:\(scene.server.port)"))
        #expect(try await store.apiToken(ofAccount: account.id)?.exposedValue == minted.value)
        let details = try #require(try await store.apiTokenDetails(ofAccount: account.id))
        #expect(details.name == minted.name)
        let expiresAt = try #require(details.expiresAt)
        #expect(expiresAt >= before.addingTimeInterval(90 * 86_400 - 1))
        #expect(expiresAt <= minted.expiresAt! && expiresAt > minted.expiresAt!.addingTimeInterval(-1), "the server's own expiry, to the second")
        #expect(expiresAt.timeIntervalSinceReferenceDate.rounded(.down) == expiresAt.timeIntervalSinceReferenceDate, "a whole second")
        let json = try login.json()
        #expect(json["account"] as? String == account.name)
        #expect(json["token_name"] as? String == minted.name)
        #expect(json["token_expires_at"] as? String == Timestamp.format(expiresAt))

        let status = await scene.cli.run(["status", "--json"])
        let accounts = await scene.cli.run(["accounts", "--json"])
        let text = await scene.cli.run(["status"])
        let row = try #require((try status.json()["accounts"] as? [[String: Any]])?.first)
        #expect(row["token_name"] as? String == minted.name)
        #expect(row["token_expires_at"] as? String == Timestamp.format(expiresAt))
        #expect(accounts.out.contains(#""token_name":"\#(minted.name)""#))
        #expect(text.out.contains("API token: \(minted.name), expires on \(Timestamp.format(expiresAt).prefix(10))"), "\(text.out)")
        for result in [login, status, accounts, text] {
            #expect(!(result.out + result.err).contains(minted.value), "the token was printed")
            #expect(!(result.out + result.err).contains(String(minted.value.dropFirst(3).prefix(12))))
        }
    }

    @Test("the token's expiry is what the server answered, not this machine's clock plus the lifetime")
    func expiryFromTheServer() async throws {
        let scene = try await Scene.make()
        defer { scene.stop() }
        // The server's clock runs five days ahead of this machine's.
        scene.server.now = Date(timeIntervalSinceNow: 5 * 86_400)

        let login = await scene.login(["--json"], destination: scene.destination)

        #expect(login.code == 0, "\(login.err)")
        let minted = try #require(scene.server.tokens(of: "alice").first)
        // The server's expiry to its whole second, as the database keeps it.
        let serverExpiry = Timestamp.format(try #require(SyncEngine.wholeSecond(minted.expiresAt)))
        let account = try #require(try await scene.cli.store().accounts().first)
        let details = try #require(try await scene.cli.store().apiTokenDetails(ofAccount: account.id))
        #expect(details.expiresAt.map(Timestamp.format) == serverExpiry)
        #expect(try login.json()["token_expires_at"] as? String == serverExpiry)
    }

    @Test("a :port in the destination becomes -p; --ttl and --token-name reach the server as given")
    func portLifetimeAndName() async throws {
        let scene = try await Scene.make()
        defer { scene.stop() }
        // alice's configuration without its Port line: only -p reaches the front.
        let config = scene.cli.folder.file("ssh_config_without_port")
        let lines = try String(contentsOfFile: scene.front.configFile(for: "alice"), encoding: .utf8).split(separator: "\n")
        try lines.filter { !$0.trimmingCharacters(in: .whitespaces).hasPrefix("Port ") }.joined(separator: "\n")
            .write(toFile: config, atomically: true, encoding: .utf8)

        let login = await scene.login(
            ["--ttl", "720h", "--token-name", "laptop's token"], destination: "\(scene.front.loginUser)@127.0.0.1:\(scene.front.port)",
            config: config)

        #expect(login.code == 0, "\(login.err)")
        let minted = try #require(scene.server.tokens(of: "alice").first)
        #expect(minted.name == "laptop's token")
        let lifetime = try #require(minted.expiresAt).timeIntervalSince(minted.createdAt)
        #expect(abs(lifetime - 720 * 3600) < 0.002, "\(lifetime)")
        #expect(
            scene.server.sshCommands().first?.argv == ["token", "create", "--name", "laptop's token", "--scope", "full", "--ttl", "720h", "--json"])
        #expect(login.out.contains("Its API token, laptop's token, expires in 29 days;"), "\(login.out)")
    }

    @Test("a key the server refuses: exit 77 naming the refusal and the fix, no token, no database")
    func refusedKey() async throws {
        let scene = try await Scene.make()
        defer { scene.stop() }

        let login = await scene.login(destination: scene.front.destination, config: scene.front.strangerConfigFile)

        #expect(login.code == ExitCode.denied.rawValue, "\(login.err)")
        #expect(login.err.contains("\(scene.front.destination) refused the SSH key"), "\(login.err)")
        #expect(login.err.contains("Permission denied"))
        #expect(login.err.contains("nothing was stored"))
        #expect(login.err.contains("Add your public key to your account's SSH keys on \(scene.server.baseURL)"))
        #expect(login.out.isEmpty)
        #expect(scene.server.sshCommands().isEmpty && scene.server.tokens(of: "alice").isEmpty)
        #expect(scene.server.requests().isEmpty)
        #expect(!scene.databaseExists)
    }

    @Test("a second login --ssh on the install mints a name told apart by the time; the next run revokes the first token")
    func signInAgain() async throws {
        let scene = try await Scene.make()
        defer { scene.stop() }
        #expect(await scene.login(destination: scene.destination).code == 0)
        let first = try #require(scene.server.tokens(of: "alice").first)

        let again = await scene.login(destination: scene.destination)

        #expect(again.code == 0, "\(again.err)")
        let second = try #require(scene.server.tokens(of: "alice").first { $0.name != first.name })
        #expect(second.name.hasPrefix(first.name + "-r") && second.name.count == first.name.count + 16, "\(second.name)")
        #expect(!again.out.contains(second.value) && !again.err.contains(second.value))
        #expect(await scene.cli.run(["device", "set-token"], stdin: "aa11").code == 0)
        let run = await scene.cli.run(["run"])
        #expect(run.code == 0, "\(run.err)")
        #expect(scene.server.tokens(of: "alice").map(\.name) == [second.name], "the token the sign-in replaced is revoked")
        #expect(scene.server.accepts(second.value))
    }

    @Test("three logins --ssh within one second each mint a name of their own: a second later when the second's name is taken here")
    func threeWithinOneSecond() async throws {
        let scene = try await Scene.make()
        defer { scene.stop() }
        let instant = Date(timeIntervalSinceReferenceDate: 818_000_000)
        let arguments = ["login", scene.server.baseURL, "--ssh"] + (scene.destination.map { [$0] } ?? [])

        for _ in 0..<3 {
            let login = await scene.cli.run(arguments, extraEnvironment: scene.ssh(config: scene.front.configFile(for: "alice"))) {
                $0.now = { instant }
            }
            #expect(login.code == 0, "\(login.err)")
        }

        let names = scene.server.tokens(of: "alice").map(\.name)
        let base = try #require(names.first)
        let second = TokenRotation.successorName(of: base, at: instant)
        let third = TokenRotation.successorName(of: base, at: instant + 1)
        #expect(names == [base, second, third])
    }

    @Test(
        "a second login --ssh that stops between the mint and the sign-in, its token left valid: the name was recorded first, and the next run revokes it"
    )
    func mintRecordedFirst() async throws {
        let scene = try await Scene.make()
        defer { scene.stop() }
        #expect(await scene.login(destination: scene.destination).code == 0)
        let first = try #require(scene.server.tokens(of: "alice").first)
        // The sign-in fails once the token is minted, and so does its revocation: the token is left as a kill would leave it.
        scene.server.inject(.garbage, command: "whoami")
        scene.server.inject(.status(503, body: #"{"protocol_version":1,"error":"store busy"}"#), command: "token revoke", times: 10)

        let stopped = await scene.login(destination: scene.destination)

        #expect(stopped.code != 0, "\(stopped.err)")
        let left = try #require(scene.server.tokens(of: "alice").first { $0.name != first.name })
        #expect(scene.server.accepts(left.value))
        let account = try #require(try await scene.cli.store().accounts().first)
        #expect(try await scene.cli.store().apiTokenRecords()[account.id]?.staleNames == [left.name])
        scene.server.clearFaults()
        #expect(await scene.cli.run(["device", "set-token"], stdin: "aa11").code == 0)
        let run = await scene.cli.run(["run"])
        #expect(run.code == 0, "\(run.err)")
        #expect(!scene.server.accepts(left.value), "the token the stopped login minted is revoked")
        #expect(scene.server.accepts(first.value))
        #expect(try await scene.cli.store().apiTokenRecords()[account.id]?.staleNames == [])
    }

    @Test("a name the account has already (--token-name given twice): exit 65 with the server's words and the fix; the first sign-in stays")
    func duplicateName() async throws {
        let scene = try await Scene.make()
        defer { scene.stop() }
        #expect(await scene.login(["--token-name", "gitbay-sync-mine"], destination: scene.destination).code == 0)
        let first = try #require(scene.server.tokens(of: "alice").first)
        let before = try Data(contentsOf: URL(fileURLWithPath: scene.cli.databasePath))

        let again = await scene.login(["--token-name", "gitbay-sync-mine"], destination: scene.destination)

        #expect(again.code == ExitCode.dataError.rawValue, "\(again.err)")
        #expect(again.err.contains("refused `token create --name \(first.name)` (exit_code 1: you already have a token named"), "\(again.err)")
        #expect(again.err.contains("nothing was stored"))
        #expect(again.err.contains("token revoke \(first.name)`"))
        #expect(again.err.contains("--token-name"))
        #expect(scene.server.tokens(of: "alice").map(\.value) == [first.value])
        #expect(try Data(contentsOf: URL(fileURLWithPath: scene.cli.databasePath)) == before)
        let account = try #require(try await scene.cli.store().accounts().first)
        #expect(try await scene.cli.store().apiToken(ofAccount: account.id)?.exposedValue == first.value)
    }

    /// A program standing for ssh: runs the real one with alice's key, then ends as `then`
    /// says (`exit 255`: ssh's own failure; `exec sleep 30`: a hang past the timeout).
    static func sshThen(_ then: String, _ scene: Scene, in folder: TemporaryDirectory) throws -> [String: String] {
        let path = folder.file("ssh-then")
        let ssh = [scene.front.sshPath, "-F", scene.front.configFile(for: "alice")].map(ShellWords.quoted).joined(separator: " ")
        try "#!/bin/sh\n\(ssh) \"$@\"\n\(then)\n".write(toFile: path, atomically: true, encoding: .utf8)
        chmod(path, 0o755)
        return [SSHProgram.variable: path]
    }

    @Test(
        "ssh that fails (255) or hangs past the timeout after the server answered: the token is used, or revoked again when the sign-in fails",
        arguments: ["exit 255", "exec sleep 30"])
    func answerBeforeSSHFailed(_ then: String) async throws {
        let scene = try await Scene.make()
        defer { scene.stop() }
        let folder = try TemporaryDirectory()
        let ssh = try Self.sshThen(then, scene, in: folder)
        let arguments = ["login", scene.server.baseURL, "--ssh"] + (scene.destination.map { [$0] } ?? [])

        let login = await scene.cli.run(arguments, extraEnvironment: ssh, adjust: { $0.sshTimeout = .seconds(8) })

        #expect(login.code == 0, "\(login.err)")
        let minted = try #require(scene.server.tokens(of: "alice").first)
        let account = try #require(try await scene.cli.store().accounts().first)
        #expect(try await scene.cli.store().apiToken(ofAccount: account.id)?.exposedValue == minted.value)

        // The same ending, then a sign-in that fails: the token the answer carried is revoked again.
        scene.server.inject(.garbage, command: "whoami")
        let again = await scene.cli.run(arguments, extraEnvironment: ssh, adjust: { $0.sshTimeout = .seconds(8) })

        #expect(again.code == ExitCode.unavailable.rawValue, "\(again.err)")
        #expect(again.err.contains("minted for it was revoked again."), "\(again.err)")
        #expect(scene.server.tokens(of: "alice").map(\.name) == [minted.name], "only the first sign-in's token is left")
    }

    @Test("a sign-in that fails once the token is minted revokes it again, or says how to, and stores nothing")
    func failedSignInRevokes() async throws {
        let scene = try await Scene.make()
        defer { scene.stop() }
        scene.server.inject(.garbage, command: "whoami")

        let garbled = await scene.login(destination: scene.destination)

        #expect(garbled.code == ExitCode.unavailable.rawValue, "\(garbled.err)")
        let mintedName = try #require(scene.server.sshCommands().first?.argv.dropFirst(3).first)
        #expect(garbled.err.contains("did not answer as a gitbay API"))
        #expect(garbled.err.contains("The token \(mintedName) minted for it was revoked again."), "\(garbled.err)")
        #expect(scene.server.tokens(of: "alice").isEmpty, "revoked")
        #expect(!scene.databaseExists)

        scene.server.apiEnabled = false
        let name = "second"
        let off = await scene.login(["--token-name", name], destination: scene.destination)

        #expect(off.code == ExitCode.unavailable.rawValue, "\(off.err)")
        let left = try #require(scene.server.tokens(of: "alice").first { $0.name == name })
        #expect(scene.server.accepts(left.value))
        #expect(off.err.contains("could not be revoked: revoke it with `ssh "), "\(off.err)")
        #expect(off.err.contains("token revoke second`"))
        #expect(!off.err.contains(left.value))
        // The name stays recorded for the server, for the next sign-in there to revoke; no account.
        #expect(try await scene.cli.store().pendingMints(instance: try InstanceURL(parsing: scene.server.baseURL)) == [name])
        #expect(try await scene.cli.store().accounts().isEmpty)
    }
}
