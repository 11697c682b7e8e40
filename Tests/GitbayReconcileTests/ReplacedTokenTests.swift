import Foundation
import GitbayFake
import ReconcileSupport
import Synchronization
import Testing
import TransportSupport

@testable import GitbayAPI
@testable import GitbayReconcile
@testable import GitbayState
@testable import GitbaySupport

/// A token refused after another process replaced it (a rotation, a sign-in) leaves the
/// account as the token stored now makes it, never `auth-failed` for a token it no longer has.
@Suite("A replaced token")
struct ReplacedTokenTests {
    /// Runs `replace` once, before the first request that `when` picks is sent.
    final class ReplacingTransport: HTTPTransport {
        let base: MemoryTransport
        let when: @Sendable (HTTPRequest) -> Bool
        let replace: @Sendable () async throws -> Void
        let done = Mutex(false)

        init(
            _ base: MemoryTransport, when: @escaping @Sendable (HTTPRequest) -> Bool = { _ in true },
            replace: @escaping @Sendable () async throws -> Void
        ) {
            (self.base, self.when, self.replace) = (base, when, replace)
        }

        func send(_ request: HTTPRequest, limits: TransportConfiguration) async throws(TransportError) -> HTTPResponse {
            if when(request), !done.withLock({ $0 }) {
                done.withLock { $0 = true }
                try? await replace()
            }
            return try await base.send(request, limits: limits)
        }
    }

    @Test("a token refused during its renewal after another process replaced it is not called refused")
    func renewalRefusedAfterReplacement() async throws {
        let (server, world, alice, old, _) = try await TokenRotationTests.aliceWithMintedToken()
        let new = server.mintToken(for: "alice")
        let store = world.store
        var client = ReconcileWorld.client
        // Every request but the passes' lists is the renewal's (its device is registered already).
        client.http = ReplacingTransport(
            MemoryTransport([server]), when: { !$0.url.contains("argv=notifications") },
            replace: {
                // Another process's sign-in, after this run's pass read the token: the new one stored, the old one revoked.
                try await store.access { database in
                    try database.run("UPDATE api_tokens SET token = ? WHERE account_id = ?", .text(new), .integer(alice.id))
                }
                server.revokeToken(old)
            })
        let later: @Sendable () -> Date = { Date().addingTimeInterval(61 * 86_400) }

        let outcome = try #require(try await world.engine(client: client, now: later).run().first?.outcome)

        #expect(outcome.condition != .authFailed && !outcome.isFailure, "\(outcome)")
        #expect(try await world.store.status(ofAccount: alice.id).condition != .authFailed)
        let stored = try await world.store.apiToken(ofAccount: alice.id)
        #expect(server.accepts(new) && stored == Secret(new), "the token stored now is left as it is")
    }

    @Test("a 401 to a token another process replaced meanwhile plans the pass again with the stored one")
    func refusedAfterReplacement() async throws {
        let server = try FakeGitbayServer()
        let world = try await ReconcileWorld()
        let old = server.mintToken(for: "alice")
        let alice = try await world.signIn(server, "alice", apiToken: old)
        try await world.setToken()
        var client = ReconcileWorld.client
        client.http = MemoryTransport([server])
        _ = try await world.run(client: client)
        #expect(server.devices(of: "alice").count == 1)

        // Another process rotates alice's token: the new one is stored, the old one revoked.
        let new = server.mintToken(for: "alice")
        server.revokeToken(old)
        let store = world.store
        client.http = ReplacingTransport(MemoryTransport([server])) {
            try await store.access { database in
                try database.run("UPDATE api_tokens SET token = ? WHERE account_id = ?", .text(new), .integer(alice.id))
            }
        }
        let outcomes = try await world.run(client: client)
        let outcome = try #require(outcomes.values.first)
        #expect(outcome.condition != .authFailed && !outcome.isFailure, "\(outcome)")
        #expect(try await world.store.status(ofAccount: alice.id).condition == .registered)
    }
}
