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

/// The adds of a run take turns (`AddTurns`), and an add may hang on its server until the
/// request times out. An account waiting for its turn must hold nothing another process
/// needs meanwhile.
@Suite("An add waiting for its turn")
struct AddTurnTests {
    /// Opens once; every wait before or after returns once it is open.
    final class Latch: Sendable {
        private let state = Mutex((open: false, waiting: [CheckedContinuation<Void, Never>]()))

        func open() {
            let waiting = state.withLock { state in
                defer { state = (true, []) }
                return state.waiting
            }
            for continuation in waiting { continuation.resume() }
        }

        func wait() async {
            await withCheckedContinuation { continuation in
                let open = state.withLock { state in
                    if !state.open { state.waiting.append(continuation) }
                    return state.open
                }
                if open { continuation.resume() }
            }
        }
    }

    /// Holds the first list sent to `listed` until an add to `adding` is in flight, and that
    /// add until `addMayGo` opens.
    final class HeldAdd: HTTPTransport {
        let inner = ServerTransport.shared
        let listed: String
        let adding: String
        let addInFlight = Latch()
        let addMayGo = Latch()
        private let listsSeen = Mutex(0)

        init(listed: String, adding: String) {
            (self.listed, self.adding) = (listed, adding)
        }

        func send(_ request: HTTPRequest, limits: TransportConfiguration) async throws(TransportError) -> HTTPResponse {
            let body = String(decoding: request.body ?? [], as: UTF8.self)
            if request.url.hasPrefix(adding), request.method == "POST", body.contains("\"add\"") {
                addInFlight.open()
                await addMayGo.wait()
            } else if request.url.hasPrefix(listed), request.method == "GET" {
                let first = listsSeen.withLock { seen in
                    defer { seen += 1 }
                    return seen == 0
                }
                if first { await addInFlight.wait() }
            }
            return try await inner.send(request, limits: limits)
        }
    }

    @Test("an account whose add waits for another account's hung add holds no lease: a pause of it meanwhile goes through, and stays")
    func waitingAddHoldsNoLease() async throws {
        let server = try FakeGitbayServer()
        let hung = try FakeGitbayServer()
        let world = try await ReconcileWorld()
        let alice = try await world.signIn(server, "alice")
        let bob = try await world.signIn(hung, "bob")
        try await world.setToken()
        _ = try await world.run()
        // Both servers lose their rows, so both accounts add again; bob's add is in flight
        // (and held) before alice's list is answered, so alice's add comes second.
        for lost in [server, hung] { lost.deleteDevice(id: try #require(lost.devices().first).id) }
        let transport = HeldAdd(listed: server.baseURL, adding: hung.baseURL)
        var client = ReconcileWorld.client
        client.http = transport
        let aliceWaits = Latch()
        let logger = Logger(minimumLevel: .debug) { record in
            if record.message == "registration.add-waits-turn", record.metadata["account.name"] == alice.name { aliceWaits.open() }
        }
        let reconciler = Reconciler(store: world.store, options: .init(honourBackoff: true, client: client), logger: logger)
        let run = Task { try await reconciler.reconcile() }
        await aliceWaits.wait()

        // Another process pauses alice while the run waits on bob's add.
        let paused = try #require(try await world.change(alice, to: .paused)[alice.name])
        #expect(paused.skipReason == nil, "the pause was not left to the waiting run: \(String(describing: paused.skipReason))")
        #expect(paused.action != .failed)
        #expect(try await world.store.leases().map(\.accountID) == [bob.id], "only bob's add holds a lease")

        transport.addMayGo.open()
        let outcomes = Dictionary(uniqueKeysWithValues: try await run.value.map { ($0.account, $0) })
        #expect(server.devices(of: "alice").isEmpty, "the run did not add the paused account back")
        #expect(try await world.store.registrations(ofAccount: alice.id).isEmpty)
        #expect(outcomes[bob.name]?.action == .reAdded)
        #expect(hung.devices(of: "bob").count == 1)
    }
}
