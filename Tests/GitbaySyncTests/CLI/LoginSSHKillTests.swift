import Foundation
import GitbayFake
import TestSupport
import Testing

@testable import GitbaySync

/// A `login --ssh` killed between the server's mint and the sign-in: the user is not known
/// before `whoami`, so the name is recorded for the server before the mint.
@Suite(
    "A login --ssh killed after the mint", .timeLimit(.minutes(2)),
    .enabled(if: SSHFront.missingTools == nil, "needs sshd, ssh and ssh-keygen: run scripts/install-deps"))
struct LoginSSHKillTests {
    /// A program standing for ssh: runs the real one, keeps its answer, then kills gitbay-sync
    /// (its parent) with SIGKILL, as a crash or a `kill -9` right after the mint would.
    static func killingSSH(_ front: SSHFront, in folder: TemporaryDirectory) throws -> String {
        let path = folder.file("ssh-then-kill")
        let ssh = ([front.sshPath, "-F", front.configFile(for: "alice")]).map(ShellWords.quoted).joined(separator: " ")
        try """
        #!/bin/sh
        \(ssh) "$@" > '\(folder.file("answer"))'
        kill -9 $PPID
        sleep 5
        """.write(toFile: path, atomically: true, encoding: .utf8)
        chmod(path, 0o755)
        return path
    }

    @Test("the killed login's token is named for the server: the next login signs in, and the run after it revokes that token")
    func killedFirstLogin() async throws {
        let server = try FakeGitbayServer()
        let front = try await SSHFront.start(fakePort: server.port, users: ["alice"])
        defer {
            front.stop()
            server.stop()
        }
        let folder = try TemporaryDirectory()
        let destination = front.loginUser == "git" ? [] : [front.destination]
        let killing = try BuiltBinary.located(in: folder, adding: [SSHProgram.variable: try Self.killingSSH(front, in: folder)])

        let killed = try await killing.run(["login", server.baseURL, "--ssh"] + destination)

        #expect(killed.code == 128 + SIGKILL || killed.code == SIGKILL, "killed: \(killed.code) \(killed.err)")
        let left = try #require(server.tokens(of: "alice").first, "the server minted before the kill")
        #expect(server.accepts(left.value))

        let plain = [SSHProgram.variable: [front.sshPath, "-F", front.configFile(for: "alice")].map(ShellWords.quoted).joined(separator: " ")]
        let binary = try BuiltBinary(executable: killing.executable, environment: killing.environment.merging(plain) { $1 }, folder: folder)
        let again = try await binary.run(["login", server.baseURL, "--ssh"] + destination)

        #expect(again.code == 0, "the killed login's name does not block the next: \(again.err)")
        let current = try #require(server.tokens(of: "alice").first { $0.name != left.name })
        #expect(try await binary.run(["device", "set-token"], stdin: "aa11").code == 0)
        let run = try await binary.run(["run"])
        #expect(run.code == 0, "\(run.err)")
        #expect(!server.accepts(left.value), "the token the killed login minted is revoked")
        #expect(server.accepts(current.value))
        #expect(server.tokens(of: "alice").map(\.name) == [current.name])
    }

    @Test("killed while another user's account is signed in there: that account's run cannot revoke it, the key's user's next sign-in does")
    func killedBesideAnotherUser() async throws {
        let server = try FakeGitbayServer()
        let front = try await SSHFront.start(fakePort: server.port, users: ["alice", "bob"])
        defer {
            front.stop()
            server.stop()
        }
        let folder = try TemporaryDirectory()
        let destination = front.loginUser == "git" ? [] : [front.destination]
        let killing = try BuiltBinary.located(in: folder, adding: [SSHProgram.variable: try Self.killingSSH(front, in: folder)])
        func binary(_ user: String) throws -> BuiltBinary {
            let ssh = [SSHProgram.variable: front.sshCommand(for: user).map(ShellWords.quoted).joined(separator: " ")]
            return try BuiltBinary(executable: killing.executable, environment: killing.environment.merging(ssh) { $1 }, folder: folder)
        }
        let bob = try binary("bob")
        #expect(try await bob.run(["login", server.baseURL, "--ssh"] + destination).code == 0)
        #expect(try await bob.run(["device", "set-token"], stdin: "aa11").code == 0)

        let killed = try await killing.run(["login", server.baseURL, "--ssh"] + destination)

        #expect(killed.code == 128 + SIGKILL || killed.code == SIGKILL, "killed: \(killed.code) \(killed.err)")
        let left = try #require(server.tokens(of: "alice").first, "the server minted before the kill")
        let bobsRun = try await bob.run(["run"])
        #expect(bobsRun.code == 0, "\(bobsRun.err)")
        #expect(server.accepts(left.value), "bob's token cannot revoke alice's")

        let alice = try binary("alice")
        // Within the killed login's second, most often: the next name is told apart all the same.
        let again = try await alice.run(["login", server.baseURL, "--ssh"] + destination)
        #expect(again.code == 0, "\(again.err)")
        let run = try await alice.run(["run"])
        #expect(run.code == 0, "\(run.err)")
        #expect(!server.accepts(left.value), "the token the killed login minted is revoked by alice's run")
        #expect(server.tokens(of: "alice").count == 1)
    }
}
