import Foundation
import GitbayFake
import GitbayKeyring
import ReconcileSupport
import Testing
import TransportSupport

@testable import GitbayAPI
@testable import GitbayReconcile
@testable import GitbayState
@testable import GitbaySupport

/// A stale token record is made only for a token really replaced: every token this install
/// minted is either the current one or recorded, never both.
@Suite("Stale token records")
struct StaleTokenRecordTests {
    @Test("a second sign-in with no session bus keeps its token in the database and records the one it replaced, not its own")
    func noBusSignInRecordsOnlyTheReplaced() async throws {
        let world = try await ReconcileWorld()
        let server = try FakeGitbayServer()
        var client = ReconcileWorld.client
        client.http = MemoryTransport([server])
        let absent = MemoryKeyring(failing: .noSessionBus(detail: "none"))
        let engine = SyncEngine(
            store: world.store, options: Reconciler.Options(honourBackoff: false, client: client, keyring: absent), logger: .disabled)
        let instance = try InstanceURL(parsing: server.baseURL)
        for name in ["gitbay-sync-laptop-gbs-000001", "gitbay-sync-laptop-gbs-000002"] {
            let token = server.mintToken(for: "alice", name: name)
            let signedIn = try await engine.signIn(
                instance: instance, username: "alice", apiToken: Secret(token), details: APITokenDetails(name: name))
            #expect(signedIn.kept.place == .awaitingKeyring)
        }
        let account = try #require(try await world.store.accounts().first)
        let record = try #require(try await world.store.apiTokenRecords()[account.id])
        #expect(record.details.name == "gitbay-sync-laptop-gbs-000002")
        #expect(record.staleNames == ["gitbay-sync-laptop-gbs-000001"], "the replaced token is stale, the current one is not")
    }
}

/// A sign-in that fails leaves nothing behind, in the keyring either.
@Suite("A failed sign-in and the keyring")
struct FailedSignInKeyringTests {
    @Test("a sign-in whose database write fails after the keyring took the token deletes the item it wrote")
    func failedWriteDeletesItem() async throws {
        let world = try await ReconcileWorld()
        let server = try FakeGitbayServer()
        let keyring = MemoryKeyring()
        let tokens = APITokens(store: world.store, keyring: keyring)
        _ = try await world.store.device()
        let other = try Database(path: world.folder.databasePath, mode: .readWrite)
        // Readers go on; the sign-in's write waits, then fails.
        try other.execute("BEGIN IMMEDIATE")
        defer { try? other.execute("COMMIT") }
        await #expect(throws: (any Error).self) {
            try await tokens.signIn(
                instance: try InstanceURL(parsing: server.baseURL), username: "alice", apiToken: Secret(server.mintToken(for: "alice")),
                details: .unknown, choice: nil, now: Date())
        }
        #expect(keyring.calls.withLock { $0 } == ["store", "delete"])
        #expect(keyring.items.withLock { $0 }.isEmpty, "the item the failed sign-in wrote is gone")
    }
}
