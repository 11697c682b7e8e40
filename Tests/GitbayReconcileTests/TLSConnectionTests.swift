import Foundation
import GitbayCurl
import GitbayFake
import ReconcileSupport
import TestSupport
import Testing

@testable import GitbayAPI
@testable import GitbayReconcile
@testable import GitbayState
@testable import GitbaySupport

/// A run's connections to an `https` instance, counted by the TLS front (`scripts/h2-tls-front`)
/// placed before a test server: over HTTP/2 every account of the instance is a stream of one
/// connection; over HTTP/1.1 the accounts take turns on a few kept connections. Every run has a
/// pool of its own, so it starts with no connection open.
@Suite("Connections to an https instance")
struct TLSConnectionTests {
    static let accounts = 24

    /// A server answering after `latency` (so that requests overlap), and a front before it.
    private static func instance(alpn: String) throws -> (server: FakeGitbayServer, front: TLSFront) {
        let server = try FakeGitbayServer()
        server.latency = .milliseconds(20)
        do {
            return (server, try TLSFront(upstream: server.baseURL, alpn: alpn))
        } catch {
            server.stop()
            throw error
        }
    }

    /// The world's client settings, trusting `front`'s authority, on a new pool.
    private static func client(trusting front: TLSFront) -> ClientConfiguration {
        var client = ReconcileWorld.client
        client.transport.certificateFile = front.certificateAuthority
        client.http = CurlTransport(pool: ConnectionPool())
        return client
    }

    /// Signs in `accounts` users of the front's instance, sets the device token, and makes the
    /// first run; returns its outcomes.
    private static func firstRun(_ world: ReconcileWorld, _ server: FakeGitbayServer, _ front: TLSFront) async throws -> [String: AccountOutcome] {
        let instance = try InstanceURL(parsing: front.url)
        for index in 0..<accounts {
            let user = "user\(index)"
            _ = try await world.store.signIn(instance: instance, username: user, apiToken: Secret(server.mintToken(for: user)))
        }
        try await world.setToken()
        return try await world.run(client: client(trusting: front))
    }

    /// Every account reconciled: registered, or shadowed by the one that holds the token.
    private static func expectReconciled(_ outcomes: [String: AccountOutcome], steady: Bool) {
        #expect(outcomes.count == accounts)
        for (name, outcome) in outcomes {
            #expect(outcome.failure == nil && outcome.action != .failed, "\(name): \(outcome)")
            #expect(outcome.condition == .registered || outcome.condition == .shadowed, "\(name): \(outcome)")
            if steady {
                #expect(outcome.action == .unchanged || outcome.action == .shadowed, "\(name): \(outcome)")
                #expect(outcome.requests == 1 && outcome.writes == 0, "\(name): \(outcome)")
            }
        }
        #expect(outcomes.values.filter { $0.condition == .registered }.count == 1)
    }

    @Test("over HTTP/2 a run's accounts of one https instance are streams of a single TLS connection, first run and steady")
    func http2OneConnection() async throws {
        let (server, front) = try Self.instance(alpn: "h2")
        defer {
            front.stop()
            server.stop()
        }
        let world = try await ReconcileWorld()

        Self.expectReconciled(try await Self.firstRun(world, server, front), steady: false)
        let first = try front.stats()
        #expect(first.connections == 1, "\(first)")
        #expect(first.protocols["h2"] == 1, "\(first)")
        #expect(first.maxConcurrentStreams > 1, "\(first)")

        try front.reset()
        Self.expectReconciled(try await world.run(client: Self.client(trusting: front)), steady: true)
        let steady = try front.stats()
        #expect(steady.connections == 1, "\(steady)")
        #expect(steady.protocols["h2"] == 1, "\(steady)")
        #expect(steady.requests == Self.accounts, "\(steady)")
        #expect(steady.maxConcurrentStreams > 1, "\(steady)")
    }

    @Test("over HTTP/1.1 a run's accounts of one https instance reuse at most eight TLS connections")
    func http1ReusedConnections() async throws {
        let (server, front) = try Self.instance(alpn: "http/1.1")
        defer {
            front.stop()
            server.stop()
        }
        let world = try await ReconcileWorld()

        Self.expectReconciled(try await Self.firstRun(world, server, front), steady: false)
        let first = try front.stats()
        #expect((1...ConnectionPool.defaultConnectionsPerInstance).contains(first.connections), "\(first)")
        #expect(first.connections < first.requests, "\(first)")
        #expect(first.protocols["http/1.1"] == first.connections && first.protocols["h2"] == 0, "\(first)")

        try front.reset()
        Self.expectReconciled(try await world.run(client: Self.client(trusting: front)), steady: true)
        let steady = try front.stats()
        #expect((1...ConnectionPool.defaultConnectionsPerInstance).contains(steady.connections), "\(steady)")
        #expect(steady.requests == Self.accounts, "\(steady)")
        #expect(steady.connections < steady.requests, "\(steady)")
    }

    @Test("a run that does not trust the instance's authority fails every account with a TLS error and opens no connection")
    func untrustedAuthorityFails() async throws {
        let (server, front) = try Self.instance(alpn: "h2")
        defer {
            front.stop()
            server.stop()
        }
        let world = try await ReconcileWorld()
        let instance = try InstanceURL(parsing: front.url)
        _ = try await world.store.signIn(instance: instance, username: "alice", apiToken: Secret(server.mintToken(for: "alice")))
        try await world.setToken()
        var client = ReconcileWorld.client
        client.http = CurlTransport(pool: ConnectionPool())

        let outcomes = try await world.run(client: client)
        let alice = try #require(outcomes.values.first)
        #expect(alice.action == .failed, "\(alice)")
        guard case .transport(.tlsFailed)? = alice.failure?.server?.kind else {
            Issue.record("a refused handshake is a TLS failure: \(alice)")
            return
        }
        // The front sees the refused handshake a moment after the client gives up.
        var stats = try front.stats()
        for _ in 0..<100 where stats.failedHandshakes == 0 {
            try await Task.sleep(for: .milliseconds(20))
            stats = try front.stats()
        }
        #expect(stats.connections == 0 && stats.requests == 0 && stats.failedHandshakes >= 1, "\(stats)")
    }
}
