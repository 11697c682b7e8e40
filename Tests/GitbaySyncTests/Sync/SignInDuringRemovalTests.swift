import Foundation
import GitbayFake
import TestSupport
import Testing

@testable import GitbayAPI
@testable import GitbayReconcile
@testable import GitbayState
@testable import GitbaySupport
@testable import GitbaySync

/// A sign-in made while a removal finishes: one of the two wins, and what each command said is
/// what happened. The pre-remove hook runs between the deregistration and the deletion, so a
/// hook that signs the account in again puts the sign-in exactly there.
@Suite("A sign-in while a removal finishes")
struct SignInDuringRemovalTests {
    /// A kept removal of alice (her server was down), a hook that signs her in again with a new
    /// token through the built binary, and her server back.
    static func keptRemovalAndSignInHook() async throws -> (FakeGitbayServer, CLIHarness, String, String) {
        let server = try FakeGitbayServer()
        let (cli, name) = try await RemovalTests.registeredAlice(on: server, apiToken: server.mintToken(for: "alice"))
        server.isDown = true
        #expect(await cli.run(["remove-account", name]).code == ExitCode.unavailable.rawValue)
        server.isDown = false
        let newToken = server.mintToken(for: "alice")
        let tokenFile = cli.folder.file("new-token")
        try newToken.write(toFile: tokenFile, atomically: true, encoding: .utf8)
        let done = cli.folder.file("signed-in")
        _ = try RemovalTests.installHook(
            cli, "'\(try BuiltBinary.located())' login \(server.baseURL) < '\(tokenFile)' > '\(done)' 2>&1 || exit 1")
        return (server, cli, name, newToken)
    }

    @Test("a run finishing a kept removal leaves an account signed in again meanwhile signed in, with its row")
    func runFinishingRemoval() async throws {
        let (server, cli, name, newToken) = try await Self.keptRemovalAndSignInHook()
        let run = await cli.run(["run", "--now", "--json"])
        let said = try String(contentsOfFile: cli.folder.file("signed-in"), encoding: .utf8)
        #expect(said.contains("Signed in as \(name)"), "\(said)")

        let store = try await cli.store()
        let account = try #require(try await store.account(named: name), "the sign-in said 'Signed in', but the run deleted the account")
        #expect(account.state == .active)
        #expect(try await store.apiToken(ofAccount: account.id) == Secret(newToken))
        let outcome = try #require((try run.json()["accounts"] as? [[String: Any]])?.first)
        #expect(outcome["action"] as? String != "removed", "\(run.out)")
        // The row the sign-in registered belongs to an account this install still knows.
        let rows = server.devices(of: "alice")
        #expect(rows.count == 1)
        let records = try await store.registrations(ofAccount: account.id)
        #expect(records.map(\.deviceID) == rows.map(\.id))
        #expect(await cli.run(["run"]).code == 0)
        #expect(server.devices(of: "alice").count == 1)
    }

    @Test("remove-account finishing while the account is signed in again keeps it, and says it was not removed")
    func removeAccountWhileSignedInAgain() async throws {
        let (server, cli, name, _) = try await Self.keptRemovalAndSignInHook()
        let removal = await cli.run(["remove-account", name])
        #expect(removal.code == ExitCode.busy.rawValue, "\(removal.err)")
        #expect(removal.err.contains("signed in again"), "\(removal.err)")
        #expect(!removal.out.contains("Removed"))
        let store = try await cli.store()
        let account = try #require(try await store.account(named: name))
        #expect(account.state == .active)
        // The removal held the account's lease, so the sign-in registered nothing; a run does.
        #expect(await cli.run(["run"]).code == 0)
        #expect(server.devices(of: "alice").count == 1)
        #expect(try await store.registrations(ofAccount: account.id).count == 1)
    }
}
