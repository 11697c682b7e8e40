import Foundation
import GitbayFake
import GitbayKeyring
import TestSupport
import Testing

@testable import GitbayReconcile
@testable import GitbayState
@testable import GitbaySupport
@testable import GitbaySync

/// `doctor` and the keyring items of this install that no account refers to any more, in a
/// real Secret Service (gnome-keyring on a private session bus).
@Suite("Keyring items nothing refers to")
struct KeyringOrphanTests {
    @Test(
        "doctor names this install's items that no account here refers to, with the command that deletes each; never an item in use or another install's"
    )
    func orphansNamed() async throws {
        let session = try await SecretServiceSession.start()
        defer { session.stop() }
        let bus = ["DBUS_SESSION_BUS_ADDRESS": session.busAddress]
        let server = try FakeGitbayServer()
        let cli = try CLIHarness()
        let other = try CLIHarness()
        #expect(await cli.run(["login", server.baseURL], stdin: server.mintToken(for: "alice"), extraEnvironment: bus).code == 0)
        #expect(await other.run(["login", server.baseURL], stdin: server.mintToken(for: "alice"), extraEnvironment: bus).code == 0)
        let marker = try await cli.store().device().installMarker
        let account = "alice@127.0.0.1:\(server.port)"
        // What a removal leaves when the keyring would not delete its items: the account is gone, its items stay.
        let keyring = SystemKeyring.make(environment: cli.environment.merging(bus) { $1 })
        let gone = "bob@127.0.0.1:\(server.port) \(marker)"
        let rotated = "bob@127.0.0.1:\(server.port) \(marker) gitbay-sync-laptop-\(marker)-r20261201000000"
        try await keyring.store(Secret(server.mintToken(for: "bob")), for: gone)
        try await keyring.store(Secret(server.mintToken(for: "bob")), for: rotated)

        let doctor = await cli.run(["doctor"], extraEnvironment: bus)

        let line = try #require(doctor.out.split(separator: "\n").first { $0.contains("keyring.items") }, "\(doctor.out)")
        #expect(line.hasPrefix("WARN"), "\(line)")
        #expect(line.contains("2 keyring items of this install that no account here refers to"), "\(line)")
        #expect(doctor.out.contains("`secret-tool clear service gitbay-sync account \(ShellWords.quoted(gone))`"), "\(doctor.out)")
        #expect(doctor.out.contains("`secret-tool clear service gitbay-sync account \(ShellWords.quoted(rotated))`"), "\(doctor.out)")
        #expect(!doctor.out.contains("account \(ShellWords.quoted(APITokens.installItem(of: account, installMarker: marker)))"), "\(doctor.out)")
        let otherMarker = try await other.store().device().installMarker
        #expect(!doctor.out.contains(otherMarker), "another install's item is its own: \(doctor.out)")

        let clean = await other.run(["doctor"], extraEnvironment: bus)
        #expect(!clean.out.contains("keyring.items"), "\(clean.out)")
    }
}
