import Foundation
import GitbayFake
import ReconcileSupport
import Synchronization
import Testing
import TransportSupport

@testable import GitbayAPI
@testable import GitbayReconcile
@testable import GitbayState

/// Before an add, the accounts of other servers holding a record of the token are listed at
/// once: the run's adds take turns, so every list a turn waits on in a row delays them all.
@Suite("Witnesses of an add")
struct WitnessListTests {
    /// Holds each request until `expected` are in flight at once, then lets them all go; after
    /// ten seconds it lets a request go anyway, so lists sent one by one end, and are counted.
    final class Rendezvous: HTTPTransport {
        let inner = ServerTransport.shared
        let expected: Int
        let state = Mutex((inFlight: 0, mostAtOnce: 0))

        init(expected: Int) { self.expected = expected }

        var mostAtOnce: Int { state.withLock { $0.mostAtOnce } }

        func send(_ request: HTTPRequest, limits: TransportConfiguration) async throws(TransportError) -> HTTPResponse {
            state.withLock { state in
                state.inFlight += 1
                state.mostAtOnce = max(state.mostAtOnce, state.inFlight)
            }
            let deadline = ContinuousClock.now + .seconds(10)
            while mostAtOnce < expected, ContinuousClock.now < deadline {
                try? await Task.sleep(for: .milliseconds(5))
            }
            defer { state.withLock { $0.inFlight -= 1 } }
            return try await inner.send(request, limits: limits)
        }
    }

    @Test("the accounts of three other servers are listed at once, in the order of their accounts")
    func listedAtOnce() async throws {
        let servers = try (0..<4).map { _ in try FakeGitbayServer() }
        let world = try await ReconcileWorld()
        var accounts: [AccountRecord] = []
        for server in servers { accounts.append(try await world.signIn(server, "alice")) }
        try await world.setToken()
        let first = try await world.run()
        #expect(first.values.allSatisfy { $0.action == .added }, "\(first)")

        let rendezvous = Rendezvous(expected: 3)
        var client = ReconcileWorld.client
        client.http = rendezvous
        let check = SameServerCheck(
            store: world.store, tokens: APITokens(store: world.store, keyring: nil), configuration: client, logger: .disabled,
            turns: AddTurns())
        let token = try #require(try await world.store.device().tokenIdentity)
        let witnesses = await check.witnesses(for: accounts[3], token: token)

        #expect(witnesses.map(\.account.id) == accounts[0..<3].map(\.id))
        #expect(witnesses.allSatisfy { $0.rows.count == 1 })
        #expect(rendezvous.mostAtOnce == 3)
    }
}
