import Foundation
import GitbayFake
import ReconcileSupport
import Testing
import TransportSupport

@testable import GitbayAPI
@testable import GitbayReconcile
@testable import GitbayState
@testable import GitbaySupport

/// The use cases as an app drives them: no command line, the fake server in memory.
@Suite("Sync engine")
struct SyncEngineTests {
    let world: ReconcileWorld
    let server: FakeGitbayServer
    let engine: SyncEngine

    init() async throws {
        world = try await ReconcileWorld()
        server = try FakeGitbayServer()
        var client = ReconcileWorld.client
        client.http = MemoryTransport([server])
        engine = SyncEngine(store: world.store, options: Reconciler.Options(honourBackoff: false, client: client), logger: .disabled)
    }

    private func client(_ token: String) throws -> GitbayClient {
        GitbayClient(
            instance: try InstanceURL(parsing: server.baseURL), apiToken: Secret(token), accountName: "new", configuration: engine.options.client,
            logger: .disabled)
    }

    private func signIn(_ user: String) async throws -> SyncEngine.SignedIn {
        let token = server.mintToken(for: user)
        let username = try await SyncEngine.verifiedUsername(try client(token))
        return try await engine.signIn(instance: try InstanceURL(parsing: server.baseURL), username: username, apiToken: Secret(token))
    }

    @Test("sign in before a device token: stored, nothing reconciled; set the token and run: registered")
    func signInThenToken() async throws {
        let signedIn = try await signIn("alice")
        #expect(!signedIn.deviceTokenSet && signedIn.outcomes.isEmpty)
        #expect(server.devices().isEmpty)

        let change = try await engine.setDeviceToken(Secret(ReconcileWorld.token), label: "phone")
        #expect(!change.rotated && !change.unchanged)
        let entries = try await engine.run()
        #expect(entries.map(\.outcome.condition) == [.registered])
        #expect(server.devices(of: "alice").map(\.token) == [ReconcileWorld.token])
    }

    @Test("a sign-in with a device token set registers at once; a second account on the server shares the token, one holds it")
    func signInRegisters() async throws {
        _ = try await engine.setDeviceToken(Secret(ReconcileWorld.token), label: nil)
        let alice = try await signIn("alice")
        #expect(alice.outcomes.map(\.condition) == [.registered])
        let bob = try await signIn("bob")
        #expect(Set(bob.outcomes.map(\.condition)) == [.registered, .shadowed])
        #expect(server.devices().count == 1)
    }

    @Test("a token the server refuses, and a read-only one: typed failures, nothing stored")
    func refusedSignIn() async throws {
        await #expect(throws: SyncEngine.SignInFailure.self) { try await SyncEngine.verifiedUsername(try client("gb_nobody")) }
        let readOnly = "gb_" + String(repeating: "r", count: 40)
        server.addToken(readOnly, for: "carol", scope: .read)
        let carol = try client(readOnly)
        do {
            _ = try await SyncEngine.verifiedUsername(carol)
            Issue.record("a read-only token signed in")
        } catch .readOnlyToken {
        } catch {
            Issue.record("a read-only token failed as \(error)")
        }
        #expect(try await world.store.accounts().isEmpty)
    }

    @Test("pause removes the row, resume adds it back; a removal deregisters, then deletes the account")
    func pauseResumeRemove() async throws {
        _ = try await engine.setDeviceToken(Secret(ReconcileWorld.token), label: nil)
        let alice = try await signIn("alice").account
        #expect(try await engine.setState(.paused, of: alice).map(\.condition) == [.paused])
        #expect(server.devices().isEmpty)
        #expect(try await engine.setState(.active, of: alice).map(\.condition) == [.registered])
        #expect(server.devices().count == 1)

        let removed = try await engine.removeAccount(alice, force: false)
        guard case .removed = removed.result else {
            Issue.record("removal ended as \(removed.result)")
            return
        }
        #expect(server.devices().isEmpty)
        #expect(try await world.store.accounts().isEmpty)
    }

    @Test("an account being signed out is refused pause and prefer, as a value")
    func beingSignedOut() async throws {
        let alice = try await signIn("alice").account
        try await world.store.setState(.removing, ofAccount: alice.id)
        let removing = try #require(try await world.store.account(id: alice.id))
        await #expect(throws: SyncEngine.Refusal.beingSignedOut(removing)) { try await engine.setState(.paused, of: removing) }
        await #expect(throws: SyncEngine.Refusal.beingSignedOut(removing)) { try await engine.prefer(removing) }
    }
}
