import Foundation
import GitbayFake
import TestSupport
import Testing

/// libcurl is opened when a command first needs to send a request, not linked: a command that
/// sends nothing never loads it (and works without it), and a command that talks to servers
/// stops before doing anything when it cannot be opened. Checked on the built binary, since
/// the library is opened once per process.
@Suite("libcurl, opened on first use")
struct LibcurlLoadingTests {
    #if os(Linux)
    @Test("status, accounts, resolve and --help never load libcurl; login does")
    func offlineCommandsLeaveLibcurlUnloaded() async throws {
        let server = try FakeGitbayServer()
        defer { server.stop() }
        let folder = try TemporaryDirectory()
        // The loader names every library it maps on stderr.
        let traced = try BuiltBinary.located(in: folder, adding: ["LD_DEBUG": "files"])

        let login = try await traced.run(["login", server.baseURL], stdin: server.mintToken(for: "alice") + "\n")
        #expect(login.code == 0, "\(login.err)")
        #expect(login.err.contains("libcurl.so"), "the control: a request loads libcurl")

        let payload = ResolveCommandTests.payload(instance: server.baseURL, user: "alice", path: "o/r/issues/1")
        for (arguments, stdin) in [(["status"], nil), (["accounts"], nil), (["--help"], nil), (["device", "show"], nil), (["resolve"], payload)] {
            let result = try await traced.run(arguments, stdin: stdin)
            #expect(result.code == 0, "\(arguments): \(result.err)")
            #expect(result.err.contains("libsqlite3"), "\(arguments): the loader's trace is on stderr")
            #expect(!result.err.contains("libcurl"), "\(arguments) loaded libcurl")
        }
    }
    #endif

    @Test("without libcurl, commands that send exit 69 naming the fix and change nothing; the others work")
    func missingLibcurl() async throws {
        let server = try FakeGitbayServer()
        defer { server.stop() }
        let folder = try TemporaryDirectory()
        let working = try BuiltBinary.located(in: folder)
        let login = try await working.run(["login", server.baseURL], stdin: server.mintToken(for: "alice") + "\n")
        #expect(login.code == 0, "\(login.err)")
        let alice = "alice@" + server.baseURL.replacingOccurrences(of: "http://", with: "")
        let before = try await working.run(["accounts", "--json"])
        let requestsBefore = server.requests().count

        let broken = try BuiltBinary.located(in: folder, adding: ["GITBAY_SYNC_LIBCURL": folder.path + "/no-such-libcurl.so"])
        let commands = [
            (["remove-account", alice], nil as String?), (["run"], nil), (["pause", alice], nil), (["devices"], nil),
            (["login", server.baseURL], server.mintToken(for: "bob") + "\n"),
        ]
        for (arguments, stdin) in commands {
            let result = try await broken.run(arguments, stdin: stdin)
            #expect(result.code == 69, "\(arguments): \(result.err)")
            #expect(result.err.contains("libcurl could not be opened from \(folder.path)/no-such-libcurl.so"), "\(arguments): \(result.err)")
            #expect(result.err.contains("apt-get install libcurl4"), "\(arguments): the message names the fix")
        }
        #expect(server.requests().count == requestsBefore, "nothing was sent")

        let after = try await broken.run(["accounts", "--json"])
        #expect(after.code == 0, "\(after.err)")
        #expect(after.out == before.out, "no account was added, removed or paused")
        let status = try await broken.run(["status"])
        #expect(status.code == 0 && status.out.contains(alice), "\(status.err)")
        let doctor = try await broken.run(["doctor"])
        #expect(doctor.code == 1, "\(doctor.err)")
        #expect(doctor.out.contains("FAIL  libcurl  \(folder.path)/no-such-libcurl.so: cannot be opened"), "\(doctor.out)")
        #expect(!doctor.out.contains("account."), "one check says it, not one per account: \(doctor.out)")
        let run = try await working.run(["run"])
        #expect(run.code == 0, "the token is still there: \(run.err)")
    }
}
