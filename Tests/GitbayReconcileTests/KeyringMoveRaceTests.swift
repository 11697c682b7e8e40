import Foundation
import GitbayFake
import GitbayKeyring
import ReconcileSupport
import Synchronization
import Testing
import TransportSupport

@testable import GitbayAPI
@testable import GitbayReconcile
@testable import GitbayState
@testable import GitbaySupport

/// A token moved into the keyring while the account signs in again, or by two runs at once.
extension KeyringTokenTests {
    /// Signed in with a token awaiting the keyring, as an earlier version, or a sign-in with no
    /// keyring answering, left it; the device token set.
    private func awaitingAlice() async throws -> AccountRecord {
        let alice = try await world.signIn(server, "alice")
        try await storedByEarlierVersion(alice)
        try await world.setToken()
        return alice
    }

    @Test(
        "a sign-in made while a run moves the old token into the keyring keeps the new token: the move neither writes over it nor leaves the old one behind"
    )
    func signInDuringMove() async throws {
        let alice = try await awaitingAlice()
        let old = try #require(try await world.store.apiToken(ofAccount: alice.id))
        let keyring = MemoryKeyring()
        let signer = engine(keyring)
        let own = APITokens.installItem(of: alice.name, installMarker: try await world.store.device().installMarker)
        let new = Secret(server.mintToken(for: "alice"))
        // The run has read its facts and is about to write the old token to the install's item: the sign-in comes first.
        let signedIn = Mutex(false)
        keyring.beforeStore.withLock {
            $0 = { item in
                guard item == own, !signedIn.withLock({ $0 }) else { return }
                signedIn.withLock { $0 = true }
                _ = try? await signer.signIn(instance: alice.instance, username: "alice", apiToken: new, choice: nil)
            }
        }

        _ = try await Reconciler(store: world.store, options: .init(client: client, keyring: keyring), logger: .disabled).reconcile()

        #expect(signedIn.withLock { $0 })
        let tokens = APITokens(store: world.store, keyring: keyring)
        #expect(try await tokens.token(of: alice) == new)
        #expect(!keyring.items.withLock { $0.values.contains(old) }, "the old token is left in no item")
        #expect(try await world.store.tokenPlaces()[alice.id] == .keyring)
    }

    @Test("two runs moving the same token into the keyring at once leave it there: the one refused deletes nothing the database names")
    func twoRunsMove() async throws {
        let alice = try await awaitingAlice()
        let token = try #require(try await world.store.apiToken(ofAccount: alice.id))
        let keyring = MemoryKeyring()
        let own = APITokens.installItem(of: alice.name, installMarker: try await world.store.device().installMarker)
        // The other run reads the same facts and moves the token first, as this one is about to write it.
        let facts = try await world.store.runFacts()
        let other = APITokens(store: world.store, keyring: keyring)
        let moved = Mutex(false)
        keyring.beforeStore.withLock {
            $0 = { item in
                guard item == own, !moved.withLock({ $0 }) else { return }
                moved.withLock { $0 = true }
                _ = await other.moveIntoKeyring(
                    facts.awaitingKeyring, of: facts.accounts, tokens: facts.apiTokens, installMarker: facts.device.installMarker, logger: .disabled)
            }
        }

        _ = try await Reconciler(store: world.store, options: .init(client: client, keyring: keyring), logger: .disabled).reconcile()

        #expect(moved.withLock { $0 })
        #expect(keyring.items.withLock { $0 } == [own: token])
        #expect(try await APITokens(store: world.store, keyring: keyring).token(of: alice) == token)
        #expect(try await world.store.tokenPlaces()[alice.id] == .keyring)
    }
}
