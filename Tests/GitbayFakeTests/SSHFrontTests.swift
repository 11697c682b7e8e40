import Foundation
import GitbayFake
import TestSupport
import Testing

/// The tests' SSH front: a real sshd whose forced command runs gitbay commands on the fake as
/// the key's user, as `ssh git@HOST -- <argv…>` does against gitbay.
@Suite("SSH front before the fake server")
struct SSHFrontTests {
    @Test("ssh -- token create --json mints a token that the fake then accepts over HTTP")
    func mintOverSSH() async throws {
        let server = try FakeGitbayServer()
        defer { server.stop() }
        server.now = FakeTokenTests.start
        let front = try await SSHFront.start(fakePort: server.port, users: ["alice"])
        defer { front.stop() }

        let words = ["token", "create", "--name", "x", "--scope", "full", "--ttl", "90d", "--json"]
        let result = try await front.run(words, config: front.configFile(for: "alice"))

        #expect(result.code == 0, "stderr: \(result.err)")
        #expect(result.err.isEmpty)
        #expect(result.out.hasSuffix("}\n"))
        let envelope = try #require(try JSONSerialization.jsonObject(with: Data(result.out.utf8)) as? [String: Any])
        #expect(envelope["protocol_version"] as? Int == 1)
        #expect(envelope["exit_code"] as? Int == 0)
        let data = try #require(envelope["data"] as? [String: Any])
        #expect(data["name"] as? String == "x")
        #expect(data["scope"] as? String == "full")
        let token = try #require(data["token"] as? String)
        let whoami = try RawHTTP.read(server.port, token: token, ["whoami"])
        #expect(whoami.status == 200)
        #expect(whoami.dataObject?["username"] as? String == "alice")
        let minted = try #require(server.tokens(of: "alice").first)
        #expect(minted.expiresAt == FakeTokenTests.start + 90 * 86_400)
        #expect(server.sshCommands() == [FakeSSHCommand(user: "alice", argv: words, stdin: nil, exitCode: 0)])
        #expect(server.requests().count == 1, "only the whoami came over the API")
    }

    @Test("the front's command line, run by a shell as git runs GIT_SSH_COMMAND, reaches the server as the key's user")
    func commandLine() async throws {
        let server = try FakeGitbayServer()
        defer { server.stop() }
        let front = try await SSHFront.start(fakePort: server.port, users: ["alice"])
        defer { front.stop() }
        let scratch = try TemporaryDirectory()

        // What $GITBAY_SYNC_SSH will hold, expanded the way git expands GIT_SSH_COMMAND.
        let arguments = ["-c", front.commandLine(for: "alice") + #" "$@""#, "sh", front.destination, "--", "whoami", "--json"]
        let (ending, output) = try await Blocking.run {
            try ChildProcess.run("/bin/sh", arguments, environment: ["PATH": "/usr/bin:/bin", "HOME": scratch.path], output: scratch.file("out"))
        }

        #expect(ending.code == 0, "\(output)")
        #expect(output == #"{"protocol_version":1,"data":{"username":"alice","admin":false,"key_scope":"full"},"exit_code":0}"# + "\n")
        #expect(front.destination.hasSuffix("@127.0.0.1"))
    }

    @Test("a key the server does not know makes ssh exit 255 and runs nothing")
    func refusedKey() async throws {
        let server = try FakeGitbayServer()
        defer { server.stop() }
        let front = try await SSHFront.start(fakePort: server.port)
        defer { front.stop() }

        let result = try await front.run(["token", "create", "--name", "x", "--json"], config: front.strangerConfigFile)

        #expect(result.code == 255)
        #expect(result.out.isEmpty)
        #expect(result.err.contains("Permission denied"))
        #expect(server.sshCommands().isEmpty)
        #expect(server.tokens(of: "alice").isEmpty)
    }

    @Test("the command's exit code is ssh's; without --json, data on stdout and the error on stderr")
    func exitCodes() async throws {
        let server = try FakeGitbayServer()
        defer { server.stop() }
        let front = try await SSHFront.start(fakePort: server.port, users: ["alice", "bob"])
        defer { front.stop() }
        let alice = front.configFile(for: "alice")

        let missing = try await front.run(["token", "revoke", "nosuch", "--json"], config: alice)
        let unknown = try await front.run(["frobnicate"], config: alice)
        let plain = try await front.run(["whoami"], config: front.configFile(for: "bob"))
        let empty = try await front.run([], config: alice)

        #expect(missing.code == 3, "ssh said: \(missing.err)")
        let envelope = try #require(try JSONSerialization.jsonObject(with: Data(missing.out.utf8)) as? [String: Any])
        #expect(envelope["exit_code"] as? Int == 3)
        #expect((envelope["error"] as? String)?.contains("nosuch") == true)
        #expect(unknown.code == 2)
        #expect(unknown.out.isEmpty)
        #expect(unknown.err.hasPrefix("error: unknown command \"frobnicate\""))
        #expect(plain.code == 0, "ssh said: \(plain.err)")
        #expect(plain.out == #"{"username":"bob","admin":false,"key_scope":"full"}"# + "\n", "each key is its own user")
        #expect(empty.code == 2)
    }

    @Test("a quoted word arrives whole, and nothing in it is run or expanded")
    func quoting() async throws {
        let server = try FakeGitbayServer()
        defer { server.stop() }
        let front = try await SSHFront.start(fakePort: server.port)
        defer { front.stop() }
        let scratch = try TemporaryDirectory()
        let planted = scratch.file("planted")
        let name = "it's mine; $(touch \(planted)) `touch \(planted)` $HOME * \"quoted\" \\ | > x"

        let result = try await front.run(
            ["token", "create", "--name", SSHCommandLine.quoted(name), "--json"], config: front.configFile(for: "alice"))

        #expect(result.code == 0, "stderr: \(result.err)")
        #expect(server.tokens(of: "alice").map(\.name) == [name])
        #expect(!FileManager.default.fileExists(atPath: planted))
    }

    @Test("standard input reaches device add over SSH, as the device token")
    func stdinOverSSH() async throws {
        let server = try FakeGitbayServer()
        defer { server.stop() }
        let front = try await SSHFront.start(fakePort: server.port)
        defer { front.stop() }

        let result = try await front.run(
            ["notifications", "device", "add", "--label", "laptop", "--json"], config: front.configFile(for: "alice"),
            stdin: "3f2a9c01aabbccdd\n")

        #expect(result.code == 0, "stderr: \(result.err)")
        #expect(server.devices().map(\.owner) == ["alice"])
        #expect(server.devices().map(\.token) == ["3f2a9c01aabbccdd"])
        #expect(server.devices().first?.insertedWith == nil, "no API token sent it")
        #expect(server.sshCommands().first?.stdin == "3f2a9c01aabbccdd\n")
    }
}
