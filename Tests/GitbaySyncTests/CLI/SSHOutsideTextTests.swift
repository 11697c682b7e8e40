import Foundation
import GitbayFake
import TestSupport
import Testing

@testable import GitbaySupport
@testable import GitbaySync

/// What ssh or the server says through ssh reaches the terminal escaped once and bounded.
@Suite("Text from ssh, escaped once and bounded")
struct SSHOutsideTextTests {
    static let hostile = "evil\u{1B}[2J"

    /// An executable that stands for ssh: prints `output` on standard output, `errors` on
    /// standard error, and exits with `status`.
    static func fakeSSH(in folder: String, output: String, errors: String, status: Int32) throws -> String {
        let (out, err) = (folder + "/answer", folder + "/said")
        try output.write(toFile: out, atomically: true, encoding: .utf8)
        try errors.write(toFile: err, atomically: true, encoding: .utf8)
        let path = folder + "/fake-ssh"
        try "#!/bin/sh\ncat '\(out)'\ncat '\(err)' >&2\nexit \(status)\n".write(toFile: path, atomically: true, encoding: .utf8)
        chmod(path, 0o755)
        return path
    }

    @Test("a refused token create with a 50 KB message prints at most a few hundred characters of it, escaped once")
    func refusedMintBounded() async throws {
        let server = try FakeGitbayServer()
        let cli = try CLIHarness()
        let folder = try TemporaryDirectory()
        let message = Self.hostile + String(repeating: "x", count: 50_000)
        let envelope = try String(
            decoding: JSONSerialization.data(withJSONObject: ["protocol_version": 1, "error": message, "exit_code": 1]), as: UTF8.self)
        let ssh = try Self.fakeSSH(in: folder.path, output: envelope + "\n", errors: "", status: 1)

        let login = await cli.run(["login", server.baseURL, "--ssh"], extraEnvironment: [SSHProgram.variable: ssh])

        #expect(login.code == ExitCode.dataError.rawValue, "\(login.err.prefix(400))")
        #expect(login.err.utf8.count < 2_000, "bounded: \(login.err.utf8.count) bytes")
        #expect(login.err.contains(#"evil\u{1B}[2J"#), "\(login.err.prefix(400))")
        #expect(!login.err.contains(#"\\u{1B}"#), "escaped once: \(login.err.prefix(400))")
        #expect(!login.err.contains("\u{1B}"))
    }

    @Test("what ssh says on standard error is escaped once")
    func sshSaidEscapedOnce() async throws {
        let server = try FakeGitbayServer()
        let cli = try CLIHarness()
        let folder = try TemporaryDirectory()
        let ssh = try Self.fakeSSH(in: folder.path, output: "", errors: "Permission denied (publickey) \(Self.hostile)\n", status: 255)

        let login = await cli.run(["login", server.baseURL, "--ssh"], extraEnvironment: [SSHProgram.variable: ssh])

        #expect(login.code == ExitCode.denied.rawValue, "\(login.err)")
        #expect(login.err.contains(#"evil\u{1B}[2J"#), "\(login.err)")
        #expect(!login.err.contains(#"\\u{1B}"#), "escaped once: \(login.err)")
    }
}
