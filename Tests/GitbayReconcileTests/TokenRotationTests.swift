import Foundation
import GitbayFake
import ReconcileSupport
import Synchronization
import TestSupport
import Testing
import TransportSupport

@testable import GitbayAPI
@testable import GitbayReconcile
@testable import GitbayState
@testable import GitbaySupport

/// Runs rotate a minted API token before it expires, and revoke the stale tokens of this install.
@Suite("Rotating the API token")
struct TokenRotationTests {
    static let day: TimeInterval = 86_400
    static let name = "gitbay-sync-laptop-gbs-aaaaaa"

    struct NeedCase: Sendable, CustomTestStringConvertible {
        let label: String
        let details: APITokenDetails
        let stale: [String]
        let need: TokenRotation.Need
        var testDescription: String { label }
    }

    static let minted = Date(timeIntervalSinceReferenceDate: 800_000_000)
    static let ninetyDays = Duration.seconds(90 * 86_400)
    static let needs: [NeedCase] = [
        NeedCase(
            label: "far from expiry: nothing", details: .init(name: name, expiresAt: minted.addingTimeInterval(89 * day), lifetime: ninetyDays),
            stale: [], need: .init(cleanUp: false, rotate: false)),
        NeedCase(
            label: "a third of its lifetime left: rotate",
            details: .init(name: name, expiresAt: minted.addingTimeInterval(30 * day), lifetime: ninetyDays), stale: [],
            need: .init(cleanUp: false, rotate: true)),
        NeedCase(
            label: "no lifetime known: never rotated", details: .init(name: name, expiresAt: minted, lifetime: nil), stale: [],
            need: .init(cleanUp: false, rotate: false)),
        NeedCase(
            label: "no name known: never rotated", details: .init(name: nil, expiresAt: minted, lifetime: ninetyDays), stale: [],
            need: .init(cleanUp: false, rotate: false)),
        NeedCase(
            label: "another install's token (a copied database): never rotated",
            details: .init(name: "gitbay-sync-desk-gbs-zzzzzz", expiresAt: minted.addingTimeInterval(30 * day), lifetime: ninetyDays),
            stale: ["gitbay-sync-desk-gbs-zzzzzz-r20260101000000"], need: .init(cleanUp: false, rotate: false)),
        NeedCase(
            label: "stale names: clean up", details: .init(name: name, expiresAt: minted.addingTimeInterval(89 * day), lifetime: ninetyDays),
            stale: [name + "-r20260101000000"], need: .init(cleanUp: true, rotate: false)),
    ]

    @Test("when a token is renewed", arguments: needs)
    func need(_ example: NeedCase) {
        #expect(TokenRotation.need(example.details, staleNames: example.stale, installMarker: "gbs-aaaaaa", now: Self.minted) == example.need)
    }

    @Test("the successor keeps the install's name and says when it was minted; --ttl as the server reads it")
    func names() {
        let at = Date(timeIntervalSince1970: 1_796_141_353)  // 2026-12-01T16:09:13Z
        #expect(TokenRotation.successorName(of: Self.name, at: at) == Self.name + "-r20261201160913")
        #expect(TokenRotation.successorName(of: Self.name + "-r20261101000000", at: at) == Self.name + "-r20261201160913")
        #expect(TokenRotation.ttl(.seconds(90 * 86_400)) == "90d")
        #expect(TokenRotation.ttl(.seconds(7200)) == "2h")
        #expect(TokenRotation.ttl(.seconds(5400)) == "5400s")
    }

    /// A world with alice signed in with a 90-day token minted under the install's name,
    /// registered; and that name.
    static func aliceWithMintedToken() async throws -> (FakeGitbayServer, ReconcileWorld, AccountRecord, String, String) {
        let server = try FakeGitbayServer()
        let world = try await ReconcileWorld()
        let name = "gitbay-sync-laptop-" + (try await world.store.device().installMarker)
        let (alice, token) = try await world.signInMinted(server, "alice", name: name)
        try await world.setToken()
        _ = try await world.run()
        return (server, world, alice, token, name)
    }

    @Test("a run far from expiry sends only its list; within a third of the lifetime it mints the successor, stores it, revokes the old")
    func rotates() async throws {
        let (server, world, alice, old, name) = try await Self.aliceWithMintedToken()
        server.resetRequests()
        _ = try await world.engine().run()
        #expect(server.requests().count == 1, "a token far from expiry costs nothing")

        let later: @Sendable () -> Date = { Date().addingTimeInterval(61 * Self.day) }
        let entries = try await world.engine(now: later).run()
        let renewal = try #require(entries.first?.outcome.tokenRenewal)
        #expect(renewal.predecessor == name && renewal.predecessorRevoked)
        let stored = try #require(try await world.store.storedAPIToken(ofAccount: alice.id))
        #expect(stored.details.name == renewal.successor)
        #expect(stored.details.name?.hasPrefix(name + "-r") == true)
        #expect(stored.details.lifetime == .seconds(90 * 86_400))
        #expect(stored.staleNames.isEmpty)
        #expect(!server.accepts(old))
        #expect(server.accepts(stored.token.exposedValue))
        #expect(server.tokens(of: "alice").map(\.name) == [stored.details.name])
        #expect(server.sshCommands().isEmpty)
        let create = try #require(server.requests().first { $0.argv.starts(with: ["token", "create"]) })
        #expect(create.argv.contains("--ttl") && create.argv.contains("90d") && create.argv.contains("full"))
        // The successor works: the next run lists with it.
        #expect(try await world.engine(now: later).run().first?.outcome.isFailure == false)
    }

    @Test("a rotation while this machine's clock runs ahead of the server's records the server's expiry, not the clock's")
    func rotationExpiryFromTheServer() async throws {
        let (server, world, alice, _, _) = try await Self.aliceWithMintedToken()
        // This machine's clock is 61 days ahead; the server's is not.
        let ahead: @Sendable () -> Date = { Date().addingTimeInterval(61 * Self.day) }

        let renewal = try #require(try await world.engine(now: ahead).run().first?.outcome.tokenRenewal)

        let stored = try #require(try await world.store.storedAPIToken(ofAccount: alice.id))
        #expect(stored.details.name == renewal.successor)
        let listed = try #require(server.tokens(of: "alice").first { $0.name == renewal.successor })
        #expect(stored.details.expiresAt == SyncEngine.wholeSecond(listed.expiresAt), "the server's expiry, to its whole second")
        let clocks = ahead().addingTimeInterval(90 * Self.day)
        #expect(try #require(stored.details.expiresAt) < clocks.addingTimeInterval(-60 * Self.day), "the clock's would be 61 days later")
    }

    /// A client whose transport stops at request `request` (counted from 1) as a crash there
    /// would: that one unsent (or its answer lost after the server applied it), none after it.
    static func crashingClient(_ server: FakeGitbayServer, at request: Int, afterServerApplied: Bool) -> ClientConfiguration {
        let count = Count()
        var client = ReconcileWorld.client
        client.http = GatedTransport(
            MemoryTransport([server]),
            mayStart: {
                let number = count.next()
                return number < request || (number == request && afterServerApplied)
            },
            mayFinish: { count.current < request })
        return client
    }

    final class Count: Sendable {
        private let box = Mutex(0)
        func next() -> Int {
            box.withLock {
                $0 += 1
                return $0
            }
        }
        var current: Int { box.withLock { $0 } }
    }

    @Test(
        "a crash between the mint and the store, or between the store and the revocation, leaves both valid; the next run leaves exactly one",
        arguments: [(2, true), (3, false)])
    func crashHealed(at request: Int, afterServerApplied: Bool) async throws {
        let (server, world, alice, _, _) = try await Self.aliceWithMintedToken()
        let later: @Sendable () -> Date = { Date().addingTimeInterval(61 * Self.day) }
        // Request 1 is the list, 2 the create, 3 the revocation of the old token.
        let crashing = Self.crashingClient(server, at: request, afterServerApplied: afterServerApplied)
        _ = try await world.engine(client: crashing, now: later).run()
        #expect(server.tokens(of: "alice").count == 2, "both tokens are valid after the crash")

        _ = try await world.engine(now: later).run()
        let stored = try #require(try await world.store.storedAPIToken(ofAccount: alice.id))
        let valid = server.tokens(of: "alice").filter { server.accepts($0.value) }
        #expect(valid.map(\.value) == [stored.token.exposedValue], "exactly one valid token of this install, the stored one")
        #expect(stored.staleNames.isEmpty)
    }

    @Test("the stale tokens revoked are only names this install recorded, never another install's or the user's")
    func onlyOwnStaleTokens() async throws {
        let (server, world, alice, _, name) = try await Self.aliceWithMintedToken()
        let others = [
            server.mintToken(for: "alice", name: "gitbay-sync-desk-gbs-zzzzzz"), server.mintToken(for: "alice", name: name + "-mine"),
            server.mintToken(for: "alice", name: name + "-r20260101000000"),
        ]
        let stale = server.mintToken(for: "alice", name: name + "-r20250101000000")
        try await world.store.recordStaleTokenNames([name + "-r20250101000000", name + "-r20240101000000"], ofAccount: alice.id)
        let entries = try await world.engine().run()
        #expect(entries.first?.outcome.tokenRenewal?.revoked == [name + "-r20250101000000"])
        #expect(!server.accepts(stale))
        for token in others { #expect(server.accepts(token)) }
        #expect(try await world.store.storedAPIToken(ofAccount: alice.id)?.staleNames == [])
    }

    @Test("a token refused during its rotation is auth-failed, with the login --ssh command to fix it")
    func refusedDuringRotation() async throws {
        let (server, world, alice, _, _) = try await Self.aliceWithMintedToken()
        server.inject(.status(401, body: #"{"protocol_version":1,"error":"invalid or expired token"}"#), command: "token create")
        let later: @Sendable () -> Date = { Date().addingTimeInterval(61 * Self.day) }
        let outcome = try #require(try await world.engine(now: later).run().first?.outcome)
        #expect(outcome.condition == .authFailed && outcome.isFailure)
        #expect(outcome.failure?.server?.kind == .authFailed && outcome.failure?.server?.command == ["token", "create"])
        #expect(outcome.instance.description == server.baseURL)
        #expect(try await world.store.status(ofAccount: alice.id).condition == .authFailed)
    }

    @Test("a rotation the server fails leaves the token in use, and the renewal says what failed as a value")
    func rotationFailed() async throws {
        let (server, world, alice, old, _) = try await Self.aliceWithMintedToken()
        server.inject(.status(500, body: #"{"protocol_version":1,"error":"internal error"}"#), command: "token create")
        let later: @Sendable () -> Date = { Date().addingTimeInterval(61 * Self.day) }
        let outcome = try #require(try await world.engine(now: later).run().first?.outcome)
        let failure = try #require(outcome.tokenRenewal?.failure?.server)
        #expect(failure.command == ["token", "create"] && failure.httpStatus == 500)
        #expect(outcome.tokenRenewal?.successor == nil)
        #expect(try await world.store.storedAPIToken(ofAccount: alice.id)?.token.exposedValue == old)
    }
}
