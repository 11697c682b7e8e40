import Foundation
import GitbayFake
import TestSupport
import Testing

@testable import GitbayState
@testable import GitbaySync

/// A token a sign-in kept in the database because no keyring answered (a headless machine):
/// it moves into the keyring at the first run that finds one answering.
@Suite("A token kept in the database until a keyring answers")
struct KeyringMoveTests {
    @Test("a sign-in with no keyring keeps the token in the database; a run without one leaves it quietly; the first run with one moves it")
    func headlessSignInMoves() async throws {
        let session = try await SecretServiceSession.start()
        defer { session.stop() }
        let server = try FakeGitbayServer()
        let cli = try CLIHarness()
        let token = server.mintToken(for: "alice")
        let login = await cli.run(["login", server.baseURL], stdin: token)
        #expect(login.code == 0, "\(login.err)")
        #expect(KeyringTests.databaseBytes(cli).contains(token))
        #expect(await cli.run(["device", "set-token"], stdin: KeyringTests.deviceToken).code == 0)

        let headless = await cli.run(["run"])
        #expect(headless.code == 0, "\(headless.err)")
        #expect(!headless.out.contains("keyring") && !headless.err.contains("keyring"), "\(headless.out)\n\(headless.err)")

        let run = await cli.run(["run"], extraEnvironment: KeyringTests.bus(session))
        #expect(run.code == 0, "\(run.err)")
        #expect(run.out.contains("API token moved into the OS keyring"), "\(run.out)")
        #expect(try await cli.store().tokenPlaces().values.map { $0 } == [.keyring])
        #expect(!KeyringTests.databaseBytes(cli).contains(token))
    }

    @Test("a token kept in the database by choice: doctor's fix signs in again over the SSH destination the account signed in with")
    func doctorKeepsDestination() async throws {
        let server = try FakeGitbayServer()
        let cli = try CLIHarness()
        let login = await cli.run(["login", server.baseURL, "--token-store", "database"], stdin: server.mintToken(for: "alice"))
        #expect(login.code == 0, "\(login.err)")
        let store = try await cli.store()
        let account = try #require(try await store.accounts().first)
        try await store.setSSHDestination("git@ssh.example.test:2222", ofAccount: account.id)
        let doctor = await cli.run(["doctor"])
        #expect(
            doctor.out.contains("`gitbay-sync login \(server.baseURL) --ssh git@ssh.example.test:2222 --token-store keyring`"), "\(doctor.out)")
    }
}
