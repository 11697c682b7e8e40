import Foundation
import GitbayFake
import TestSupport
import Testing

@testable import GitbayAPI
@testable import GitbayReconcile
@testable import GitbayState
@testable import GitbaySupport
@testable import GitbaySync

/// A user name an earlier version stored from a server that is not gitbay (outside the form
/// gitbay gives names) is refused with the fix: nothing is sent for that account, and
/// removing it works.
@Suite("A stored user name outside gitbay's form")
struct StoredNameTests {
    static let user = "$(touch${IFS}PWNED)"

    @Test("run and doctor send nothing for it and fail it, naming the fix; another account is reconciled; remove-account removes it")
    func refusedWithTheFix() async throws {
        let server = try FakeGitbayServer()
        let cli = try CLIHarness()
        _ = try await cli.login(server, "alice")
        let instance = try InstanceURL(parsing: server.baseURL)
        try await cli.store().signIn(instance: instance, username: Self.user, apiToken: Secret(server.mintToken(for: Self.user)))
        let name = "\(Self.user)@127.0.0.1:\(server.port)"
        #expect(await cli.run(["device", "set-token"], stdin: "aa11bb22eeeeffff00001111").code == 0)

        let run = await cli.run(["run"])
        #expect(run.code == 1, "\(run.out)\(run.err)")
        #expect((run.out + run.err).contains("not a gitbay user name"), "\(run.out)\(run.err)")
        #expect((run.out + run.err).contains("remove the account"))
        // The fix, as one command to paste, and no backoff to wait out.
        #expect(run.err.contains("`gitbay-sync remove-account '\(name)'`"), "\(run.err)")
        #expect(!run.err.contains("Runs try again"))
        #expect(server.requests().allSatisfy { $0.user != Self.user }, "a request was sent for \(name)")
        #expect(server.devices(of: "alice").count == 1)

        // Recorded: `status` says it, with no wait, and fails.
        let status = await cli.run(["status"])
        #expect(status.code == 1, "\(status.out)")
        #expect(status.out.contains("last error: its stored user name is not a gitbay user name"), "\(status.out)")
        #expect(!status.out.contains("next attempt"))
        #expect(status.out.contains("to fix: `gitbay-sync remove-account '\(name)'`"), "\(status.out)")
        let json = try await cli.run(["run", "--json"]).json()
        let accounts = try #require(json["accounts"] as? [[String: Any]])
        let refused = try #require(accounts.first { $0["account"] as? String == name })
        #expect(refused["action"] as? String == "failed")
        #expect(server.requests().allSatisfy { $0.user != Self.user })

        // doctor says so too, and sends its token nowhere.
        let doctor = await cli.run(["doctor"])
        #expect(doctor.code != 0, "\(doctor.out)")
        #expect(doctor.out.contains("account.username"), "\(doctor.out)")
        #expect(doctor.out.contains("`gitbay-sync remove-account '\(name)'`"), "\(doctor.out)")
        #expect(server.requests().allSatisfy { $0.user != Self.user }, "doctor sent a request for \(name)")

        let removal = await cli.run(["remove-account", name])
        #expect(removal.code == 0, "\(removal.out)\(removal.err)")
        #expect(try await cli.store().accounts().map(\.username) == ["alice"])
    }

    @Test("a stored name holding a backslash or a control character is found by the escaped form every command prints")
    func escapedNameFound() async throws {
        let server = try FakeGitbayServer()
        let cli = try CLIHarness()
        let instance = try InstanceURL(parsing: server.baseURL)
        let user = "x\\y\u{1B}[2J"
        try await cli.store().signIn(instance: instance, username: user, apiToken: Secret(server.mintToken(for: user)))
        let name = "\(user)@127.0.0.1:\(server.port)"
        let shown = TerminalText.escaped(name)
        #expect(shown != name)

        let status = await cli.run(["status"])
        #expect(status.out.contains("remove-account '\(shown)'"), "\(status.out)")
        let removal = await cli.run(["remove-account", shown])
        #expect(removal.code == 0, "\(removal.out)\(removal.err)")
        #expect(try await cli.store().accounts().isEmpty)
    }
}
