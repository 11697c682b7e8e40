import Foundation
import GitbayFake
import TestSupport
import Testing

@testable import GitbaySync

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Ctrl-C at ssh's passphrase prompt during `login --ssh`: a terminal sends SIGINT to its
/// foreground process group, gitbay-sync and ssh (and ssh's askpass) together.
@Suite(
    "login --ssh interrupted at ssh's prompt", .timeLimit(.minutes(1)),
    .enabled(if: SSHFront.missingTools == nil, "needs sshd, ssh and ssh-keygen: run scripts/install-deps"))
struct LoginInterruptTests {
    /// A copy of alice's key behind a passphrase, an ssh configuration that asks for it through
    /// `askpass` (which notes that it was asked, then waits as a person would), and the
    /// environment that runs ssh so.
    static func promptingSSH(_ front: SSHFront, in folder: TemporaryDirectory) throws -> [String: String] {
        let configuration = try String(contentsOfFile: front.configFile(for: "alice"), encoding: .utf8)
        let keyLine = try #require(configuration.split(separator: "\n").first { $0.contains("IdentityFile") })
        let original = String(keyLine.split(separator: " ").last ?? "")
        let key = folder.file("key_locked")
        try FileManager.default.copyItem(atPath: original, toPath: key)
        chmod(key, 0o600)
        let keygen = Process()
        keygen.executableURL = URL(fileURLWithPath: (front.sshPath as NSString).deletingLastPathComponent + "/ssh-keygen")
        keygen.arguments = ["-q", "-p", "-f", key, "-P", "", "-N", "a passphrase"]
        try keygen.run()
        keygen.waitUntilExit()
        #expect(keygen.terminationStatus == 0)
        let config = folder.file("ssh_config_locked")
        try configuration.replacing(keyLine, with: "  IdentityFile \(key)").replacing("BatchMode yes", with: "BatchMode no")
            .write(toFile: config, atomically: true, encoding: .utf8)
        chmod(config, 0o600)
        let askpass = folder.file("askpass")
        try "#!/bin/sh\n: > '\(folder.file("asked"))'\nexec sleep 30\n".write(toFile: askpass, atomically: true, encoding: .utf8)
        chmod(askpass, 0o755)
        return [
            SSHProgram.variable: [front.sshPath, "-F", config].map(ShellWords.quoted).joined(separator: " "),
            "SSH_ASKPASS": askpass, "SSH_ASKPASS_REQUIRE": "force",
        ]
    }

    @Test("says the login was interrupted by the user, ends as SIGINT ends a program (130), and stores nothing")
    func ctrlCAtPassphrase() async throws {
        let server = try FakeGitbayServer()
        let front = try await SSHFront.start(fakePort: server.port, users: ["alice"])
        defer {
            front.stop()
            server.stop()
        }
        let folder = try TemporaryDirectory()
        let binary = try BuiltBinary.located(in: folder, adding: try Self.promptingSSH(front, in: folder))
        let destination = front.loginUser == "git" ? [] : [front.destination]
        // In a session and process group of its own, as a shell's foreground job is.
        let login = try binary.start(["login", server.baseURL, "--ssh"] + destination, launcher: ["/usr/bin/setsid"])
        let asked = ContinuousClock.now + .seconds(20)
        while !FileManager.default.fileExists(atPath: folder.file("asked")) && ContinuousClock.now < asked {
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(FileManager.default.fileExists(atPath: folder.file("asked")), "ssh never asked for the passphrase")
        // Ctrl-C: the whole foreground group at once.
        kill(-login.pid, SIGINT)
        let finished = await login.finish(timeout: .seconds(30))

        #expect(finished.ending.bySignal && finished.status == SIGINT, "ended with \(finished.ending): \(finished.err)")
        #expect(finished.err.contains("interrupted by the user"), "\(finished.err)")
        #expect(!finished.err.contains("refused") && !finished.err.contains("did not answer"), "\(finished.err)")
        #expect(server.tokens(of: "alice").isEmpty)
        #expect(server.sshCommands().isEmpty, "nothing reached the server")
        #expect(!FileManager.default.fileExists(atPath: binary.databasePath), "nothing was stored")
    }
}
