import Foundation
import GitbayFake
import ReconcileSupport
import Synchronization
import Testing
import TransportSupport

@testable import GitbayAPI
@testable import GitbayReconcile
@testable import GitbaySupport

/// Every request of a run's passes is started with no task waiting for it
/// (`HTTPTransport.start`, `PassPool`): a `304` that finishes the pass ends it where it
/// arrives, any other answer is the pass's list, and no request is sent twice.
@Suite("First lists")
struct FirstListTests {
    /// Counts the requests sent each way, over the tests' transport.
    final class CountingTransport: HTTPTransport {
        let base = ServerTransport.shared
        let counts = Mutex((sent: 0, started: 0))

        func send(_ request: HTTPRequest, limits: TransportConfiguration) async throws(TransportError) -> HTTPResponse {
            counts.withLock { $0.sent += 1 }
            return try await base.send(request, limits: limits)
        }

        func start(
            _ request: HTTPRequest, limits: TransportConfiguration, completion: @escaping @Sendable (Result<HTTPResponse, TransportError>) -> Void
        ) -> TransportTransfer {
            counts.withLock { $0.started += 1 }
            return base.start(request, limits: limits, completion: completion)
        }
    }

    static func client(_ transport: CountingTransport) -> ClientConfiguration {
        var client = ReconcileWorld.client
        client.http = transport
        return client
    }

    @Test("a steady run starts every account's list and sends nothing from a task")
    func steadyRunStartsLists() async throws {
        let (one, two) = (try FakeGitbayServer(), try FakeGitbayServer())
        let world = try await ReconcileWorld()
        for user in ["alice", "bob", "carol"] { try await world.signIn(one, user) }
        for user in ["dave", "erin"] { try await world.signIn(two, user) }
        try await world.setToken()
        _ = try await world.run()
        _ = try await world.run()
        let transport = CountingTransport()
        one.resetRequests()
        two.resetRequests()

        let outcomes = try await world.run(client: Self.client(transport))
        #expect(transport.counts.withLock { $0 } == (sent: 0, started: 5))
        #expect((one.requests() + two.requests()).map(\.status) == Array(repeating: 304, count: 5))
        #expect(outcomes.values.allSatisfy { $0.requests == 1 && !$0.isFailure })
    }

    @Test("a first list that finds work is the pass's list: the pass goes on from its answer, every request started")
    func changedListIsNotSentAgain() async throws {
        let server = try FakeGitbayServer()
        let world = try await ReconcileWorld()
        try await world.signIn(server, "alice")
        try await world.setToken()
        _ = try await world.run()
        for row in server.devices(of: "alice") { server.deleteDevice(id: row.id) }
        server.resetRequests()
        let transport = CountingTransport()

        let outcomes = try await world.run(client: Self.client(transport))
        let lists = server.requests().filter { $0.query == "argv=notifications&argv=device&argv=list" }
        #expect(transport.counts.withLock { $0 } == (sent: 0, started: server.requests().count))
        #expect(lists.count == 2, "the list, then the one confirming the add")
        #expect(lists.first?.status == 200, "the stale tag got the list")
        #expect(server.requests().dropFirst().first?.method == "POST", "the add follows the list it read: \(server.requests().map(\.method))")
        #expect(outcomes["alice@\(try InstanceURL(parsing: server.baseURL).authority)"]?.action == .reAdded)
        #expect(server.devices(of: "alice").count == 1)
    }
}
