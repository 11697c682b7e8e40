import Foundation
import GitbayFake
import Testing

@testable import GitbayState
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

    @Test("a sign-in again that waits for another gitbay-sync working on the account says so, with its pid, then goes on")
    func saysWhatItWaitsFor() async throws {
        let server = try FakeGitbayServer()
        let cli = try CLIHarness()
        let alice = try await cli.login(server, "alice")
        let store = try await cli.store()
        let account = try #require(try await store.account(named: alice))
        let other = LeaseHolder(pid: getpid(), id: "another-run")
        #expect(try await store.takeLeases([account.id], holder: other).taken == [account.id])

        let again = await cli.run(["login", server.baseURL], stdin: server.mintToken(for: "alice")) { context in
            context.console.errorIsTerminal = true
            let err = context.console.err
            context.console.err = { line in
                err(line)
                // The other process is done once the sign-in has said it waits.
                if line.hasPrefix("waiting for gitbay-sync") { Task { try? await store.releaseLeases([account.id], holder: other) } }
            }
        }

        #expect(again.code == 0, "\(again.err)")
        #expect(
            again.err.contains("waiting for gitbay-sync (pid \(getpid())), which is reconciling \(alice), at most 30s …"), "\(again.err)")
    }
}
