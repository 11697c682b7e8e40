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

/// A keyring in memory: its items, the calls made on it, and the reason it gives instead of
/// answering while `failure` is set. `storeLost` and `deleteFailure` stand for a keyring that
/// stores the item and then fails to say so (as a crash right after the write leaves it), and
/// one that refuses a deletion. `failingFrom` fails every read from the one of that number on
/// (the first is 1), as a keyring another process changes, or that locks, during a run.
/// `beforeStore` runs as a store begins.
final class MemoryKeyring: TokenKeyring {
    let items = Mutex<[String: Secret]>([:])
    let calls = Mutex<[String]>([])
    let failure = Mutex<KeyringUnavailable?>(nil)
    let storeLost = Mutex<KeyringUnavailable?>(nil)
    let deleteFailure = Mutex<KeyringUnavailable?>(nil)
    let failingFrom = Mutex<(read: Int, reason: KeyringUnavailable)?>(nil)
    /// Called with the item's name as a store begins: what another process sees at that moment.
    let beforeStore = Mutex<(@Sendable (String) async -> Void)?>(nil)

    init(failing failure: KeyringUnavailable? = nil) {
        self.failure.withLock { $0 = failure }
    }

    private func answer(_ call: String) throws(KeyringUnavailable) {
        calls.withLock { $0.append(call) }
        if let failure = failure.withLock({ $0 }) { throw failure }
    }

    func store(_ secret: Secret, for account: String) async throws(KeyringUnavailable) {
        if let before = beforeStore.withLock({ $0 }) { await before(account) }
        try answer("store")
        items.withLock { $0[account] = secret }
        if let lost = storeLost.withLock({ $0 }) { throw lost }
    }

    func readAll() async throws(KeyringUnavailable) -> [String: Secret] {
        try answer("readAll")
        if let failing = failingFrom.withLock({ $0 }), reads >= failing.read { throw failing.reason }
        return items.withLock { $0 }
    }

    func delete(account: String) async throws(KeyringUnavailable) -> KeyringDeletion {
        try answer("delete")
        if let refused = deleteFailure.withLock({ $0 }) { throw refused }
        return items.withLock { $0.removeValue(forKey: account) } == nil ? .noItem : .deleted
    }

    var reads: Int { calls.withLock { $0.filter { $0 == "readAll" }.count } }
}

@Suite("Tokens in the keyring")
struct KeyringTokenTests {
    let world: ReconcileWorld
    let server: FakeGitbayServer
    let client: ClientConfiguration

    init() async throws {
        world = try await ReconcileWorld()
        server = try FakeGitbayServer()
        var client = ReconcileWorld.client
        client.http = MemoryTransport([server])
        self.client = client
    }

    func engine(_ keyring: (any TokenKeyring)?) -> SyncEngine {
        SyncEngine(store: world.store, options: Reconciler.Options(honourBackoff: false, client: client, keyring: keyring), logger: .disabled)
    }

    private func signIn(_ user: String, _ engine: SyncEngine, choice: TokenStoreChoice? = nil) async throws -> SyncEngine.SignedIn {
        try await engine.signIn(
            instance: try InstanceURL(parsing: server.baseURL), username: user, apiToken: Secret(server.mintToken(for: user)), choice: choice)
    }

    /// Makes the account's token one an earlier version stored: in the database, not yet offered to the keyring.
    func storedByEarlierVersion(_ account: AccountRecord) async throws {
        try await world.store.access { database in
            try database.run("UPDATE api_tokens SET store = NULL WHERE account_id = ?", .integer(account.id))
        }
    }

    @Test("a sign-in keeps the token in the keyring and only a reference in the database")
    func signInKeepsReference() async throws {
        let keyring = MemoryKeyring()
        let signedIn = try await signIn("alice", engine(keyring))

        #expect(signedIn.kept == KeptToken(place: .keyring))
        let item = APITokens.installItem(of: signedIn.account.name, installMarker: try await world.store.device().installMarker)
        #expect(keyring.items.withLock { $0[item] } != nil, "the item names the account and this install")
        #expect(try await world.store.apiToken(ofAccount: signedIn.account.id) == nil)
        #expect(try await world.store.tokenPlaces() == [signedIn.account.id: .keyring])
    }

    @Test("an item an earlier version named after the account alone moves to this install's item at the first run that reads it")
    func earlierItemMoved() async throws {
        let keyring = MemoryKeyring()
        let signedIn = try await signIn("alice", engine(keyring))
        let account = signedIn.account
        let own = APITokens.installItem(of: account.name, installMarker: try await world.store.device().installMarker)
        // As an earlier version left it: the item under the account's name, the database naming none.
        keyring.items.withLock { items in items = [account.name: items[own]!] }
        let token = try #require(keyring.items.withLock { $0[account.name] })
        try await world.store.access { database in
            try database.run("UPDATE api_tokens SET keyring_item = NULL WHERE account_id = ?", .integer(account.id))
        }
        try await world.setToken()

        let outcome = try #require(
            try await Reconciler(store: world.store, options: .init(client: client, keyring: keyring), logger: .disabled).reconcile().first)

        #expect(!outcome.isFailure && outcome.condition == .registered)
        #expect(keyring.items.withLock { $0 } == [own: token], "moved: written to the install's item, the old one deleted")
        #expect(try await world.store.keyringItems()[account.id] == own)
    }

    @Test("with no keyring answering, a sign-in keeps the token in the database and says why; asked for the keyring, it stores nothing")
    func fallback() async throws {
        let absent = MemoryKeyring(failing: .noSessionBus(detail: "none"))
        let signedIn = try await signIn("alice", engine(absent))
        #expect(signedIn.kept == KeptToken(place: .awaitingKeyring, keyringUnavailable: .noSessionBus(detail: "none")))
        #expect(try await world.store.apiToken(ofAccount: signedIn.account.id) != nil)

        let refused = try await #require(throws: SyncEngine.SignInFailure.self) { try await signIn("bob", engine(absent), choice: .keyring) }
        guard case .keyringUnavailable(.noSessionBus) = refused else {
            Issue.record("\(refused)")
            return
        }
        #expect(try await world.store.accounts().map(\.username) == ["alice"], "nothing stored for bob")

        let chosen = try await signIn("carol", engine(MemoryKeyring()), choice: .database)
        #expect(chosen.kept == KeptToken(place: .database))
    }

    @Test("a run reads every account's token in one keyring query, and none when no token is kept there")
    func oneQuery() async throws {
        let keyring = MemoryKeyring()
        for user in ["alice", "bob", "carol"] { _ = try await signIn(user, engine(keyring)) }
        _ = try await engine(keyring).setDeviceToken(Secret(ReconcileWorld.token), label: "laptop")
        let before = keyring.reads

        let entries = try await engine(keyring).run()
        #expect(keyring.reads == before + 1)
        #expect(Set(entries.map(\.outcome.condition)) == [.registered, .shadowed])

        let other = try await ReconcileWorld()
        let database = MemoryKeyring()
        _ = try await other.signIn(server, "dave")
        _ = try await Reconciler(
            store: other.store, options: .init(client: client, keyring: database), logger: .disabled
        ).reconcile()
        #expect(database.calls.withLock { $0 }.isEmpty)
    }

    @Test("a locked keyring leaves its accounts waiting, not refused, and a removal kept; the next run goes on")
    func lockedWaits() async throws {
        let keyring = MemoryKeyring()
        let alice = try await signIn("alice", engine(keyring)).account
        _ = try await engine(keyring).setDeviceToken(Secret(ReconcileWorld.token), label: "laptop")
        _ = try await engine(keyring).run()
        #expect(server.devices(of: "alice").count == 1)
        try await world.store.setState(.removing, ofAccount: alice.id)
        keyring.failure.withLock { $0 = .locked }

        let waiting = try await engine(keyring).run()
        let outcome = try #require(waiting.first?.outcome)
        #expect(outcome.action == .skipped && outcome.skipReason == .keyringUnavailable(.locked))
        #expect(outcome.condition != .authFailed && !outcome.isFailure)
        #expect(try await world.store.account(id: alice.id)?.state == .removing)
        #expect(server.devices(of: "alice").count == 1)

        keyring.failure.withLock { $0 = nil }
        let done = try await engine(keyring).run()
        #expect(done.first?.removal.map { if case .removed = $0 { true } else { false } } == true)
        #expect(server.devices(of: "alice").isEmpty)
        #expect(keyring.items.withLock { $0.isEmpty }, "the removal deletes the keyring's item")
    }

    @Test("a token refused while the keyring cannot be read again to tell whether it is still the account's is not called refused")
    func refusalUnconfirmed() async throws {
        let keyring = MemoryKeyring()
        let alice = try await signIn("alice", engine(keyring)).account
        _ = try await engine(keyring).setDeviceToken(Secret(ReconcileWorld.token), label: "laptop")
        let token = try #require(keyring.items.withLock { $0.values.first })
        server.revokeToken(token.exposedValue)
        // The run's own read answers; the one after the refusal, which would tell whether another process replaced the token, does not.
        keyring.failingFrom.withLock { $0 = (read: keyring.reads + 2, reason: .locked) }

        let outcome = try #require(try await engine(keyring).run().first?.outcome)

        #expect(outcome.action == .skipped && outcome.skipReason == .keyringUnavailable(.locked), "\(outcome)")
        #expect(try await world.store.status(ofAccount: alice.id).condition != .authFailed)

        keyring.failingFrom.withLock { $0 = nil }
        let refused = try #require(try await engine(keyring).run().first?.outcome)
        #expect(refused.condition == .authFailed, "read again, the refused token is still the account's")
    }

    @Test("an earlier version's token moves into the keyring at the next run; a locked keyring leaves it, an absent one keeps it")
    func moveEarlierTokens() async throws {
        let alice = try await world.signIn(server, "alice")
        let token = try #require(try await world.store.apiToken(ofAccount: alice.id))
        try await storedByEarlierVersion(alice)

        let locked = MemoryKeyring(failing: .locked)
        _ = try await Reconciler(store: world.store, options: .init(client: client, keyring: locked), logger: .disabled).reconcile()
        #expect(try await world.store.tokenPlaces()[alice.id] == .awaitingKeyring)
        #expect(try await world.store.apiToken(ofAccount: alice.id) == token, "a failure leaves the token where it was")

        let keyring = MemoryKeyring()
        _ = try await Reconciler(store: world.store, options: .init(client: client, keyring: keyring), logger: .disabled).reconcile()
        let item = APITokens.installItem(of: alice.name, installMarker: try await world.store.device().installMarker)
        #expect(keyring.items.withLock { $0[item] } == token)
        #expect(try await world.store.tokenPlaces()[alice.id] == .keyring)
        #expect(try await world.store.apiToken(ofAccount: alice.id) == nil)

        let bob = try await world.signIn(server, "bob")
        try await storedByEarlierVersion(bob)
        let absent = MemoryKeyring(failing: .noService(detail: "none"))
        _ = try await Reconciler(store: world.store, options: .init(client: client, keyring: absent), logger: .disabled).reconcile()
        #expect(try await world.store.tokenPlaces()[bob.id] == .awaitingKeyring, "no keyring here: it waits in the database for one")
    }

    @Test("a named token the keyring holds is read from it and revoked at sign-out; while the keyring does not answer, the removal is kept")
    func keyringTokenRevokedAtSignOut() async throws {
        let keyring = MemoryKeyring()
        let token = server.mintToken(for: "alice", name: "gitbay-sync-laptop-0123")
        let alice = try await engine(keyring).signIn(
            instance: try InstanceURL(parsing: server.baseURL), username: "alice", apiToken: Secret(token),
            details: APITokenDetails(name: "gitbay-sync-laptop-0123", expiresAt: nil)
        ).account
        _ = try await engine(keyring).setDeviceToken(Secret(ReconcileWorld.token), label: "laptop")
        _ = try await engine(keyring).run()
        #expect(try await world.store.apiToken(ofAccount: alice.id) == nil, "the database holds only a reference")

        keyring.failure.withLock { $0 = .locked }
        let kept = try await engine(keyring).removeAccount(alice, force: false)
        guard case .kept = kept.result else {
            Issue.record("a removal whose token the keyring does not give is kept: \(kept.result)")
            return
        }
        #expect(server.accepts(token), "nothing revoked yet")
        #expect(try await world.store.account(id: alice.id)?.state == .removing)

        keyring.failure.withLock { $0 = nil }
        let done = try await engine(keyring).run()
        #expect(done.first?.removal.map { if case .removed = $0 { true } else { false } } == true)
        #expect(!server.accepts(token), "the token is revoked on the server")
        #expect(keyring.items.withLock { $0.isEmpty })
    }

    @Test("a sign-in to an account being removed gives a removal under way no name of the new token to revoke")
    func signInDuringRemoval() async throws {
        let keyring = MemoryKeyring()
        let instance = try InstanceURL(parsing: server.baseURL)
        let first = server.mintToken(for: "alice", name: "gitbay-sync-laptop-1")
        let alice = try await engine(keyring).signIn(
            instance: instance, username: "alice", apiToken: Secret(first), details: APITokenDetails(name: "gitbay-sync-laptop-1", expiresAt: nil)
        ).account
        try await world.store.setState(.removing, ofAccount: alice.id)
        // What a run's removal reads as stale while the sign-in writes its token to the keyring.
        let seen = Mutex<[String]?>(nil)
        let store = world.store
        keyring.beforeStore.withLock { hook in
            hook = { _ in
                let names = (try? await store.apiTokenRecords()[alice.id]?.staleNames) ?? []
                seen.withLock { $0 = names }
            }
        }

        let second = server.mintToken(for: "alice", name: "gitbay-sync-laptop-2")
        let signedIn = try await engine(keyring).signIn(
            instance: instance, username: "alice", apiToken: Secret(second), details: APITokenDetails(name: "gitbay-sync-laptop-2", expiresAt: nil)
        ).account

        #expect(seen.withLock { $0 } == [], "the new token's name was never one to revoke")
        #expect(signedIn.id == alice.id && signedIn.state == .active, "the sign-in ended the removal")
        #expect(try await world.store.apiTokenRecords()[alice.id]?.details.name == "gitbay-sync-laptop-2")
    }
}
