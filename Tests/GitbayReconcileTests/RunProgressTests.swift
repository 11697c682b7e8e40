import Foundation
import GitbayFake
import ReconcileSupport
import Synchronization
import Testing

@testable import GitbayAPI
@testable import GitbayReconcile
@testable import GitbayState
@testable import GitbaySupport

/// A run tells its caller each account as it is done, and stops at once when asked.
@Suite("Run progress", .timeLimit(.minutes(1)))
struct RunProgressTests {
    /// What a run told, in order.
    final class Told: Sendable {
        private let events = Mutex<[SyncEngine.RunProgress]>([])
        func append(_ event: SyncEngine.RunProgress) { events.withLock { $0.append(event) } }
        var all: [SyncEngine.RunProgress] { events.withLock { $0 } }
    }

    @Test("each account is told done as it is, while another's list still hangs; a stop then cuts that one short, recording nothing")
    func toldAsDone() async throws {
        let (fast, hung, world) = (try FakeGitbayServer(), try FakeGitbayServer(), try await ReconcileWorld())
        let alice = try await world.signIn(fast, "alice")
        let bob = try await world.signIn(hung, "bob")
        try await world.setToken()
        hung.inject(.hang, command: "notifications device list", times: 10)
        let bobBefore = try await world.store.status(ofAccount: bob.id)
        let told = Told()
        let stop = ShutdownSignal()
        stop.claim()
        // Bob's list hangs past any load on the machine: only the stop ends it.
        var options = world.engine(client: ReconcileWorld.patientClient).options
        options.stopNow = { await stop.wait(for: .stopping) }
        let engine = SyncEngine(store: world.store, options: options, logger: .disabled)
        // Only alice's being told done before the run returns can stop bob's hanging list.
        let entries = try await engine.run { event in
            told.append(event)
            if case .finished(let entry) = event, entry.outcome.account == alice.name { stop.request() }
        }
        let events = told.all
        #expect(events.contains(.started(alice)) && events.contains(.started(bob)))
        // The accounts the run read come first, once, in sign-in order: its caller need not read them again.
        #expect(events.first == .read([alice, bob]))
        #expect(events.count { if case .read = $0 { true } else { false } } == 1)
        let done = events.compactMap { event -> AccountOutcome? in if case .finished(let entry) = event { entry.outcome } else { nil } }
        #expect(done.map(\.account) == [alice.name, bob.name])
        #expect(done.first?.action == .added)
        let bobEntry = try #require(entries.first { $0.outcome.account == bob.name })
        #expect(bobEntry.outcome.stopped && bobEntry.outcome.action == .failed)
        #expect(try await world.store.status(ofAccount: bob.id) == bobBefore)
        #expect(fast.devices(of: "alice").count == 1)
    }

    @Test(
        "a stop during a token's renewal cancels its request in flight: the run ends at once, the renewal failed as stopped, and the next run renews"
    )
    func stopDuringRenewal() async throws {
        let (server, world) = (try FakeGitbayServer(), try await ReconcileWorld())
        defer { server.stop() }
        let marker = try await world.store.device().installMarker
        _ = try await world.signInMinted(server, "alice", name: "gitbay-sync-laptop-" + marker)
        try await world.setToken()
        _ = try await world.run()
        // The mint hangs past the test's time limit: only the stop can end it.
        server.inject(.hang, command: "token create", user: "alice")
        let later: @Sendable () -> Date = { Date().addingTimeInterval(61 * 86_400) }
        let stop = ShutdownSignal()
        stop.claim()
        var options = world.engine(client: ReconcileWorld.patientClient, now: later).options
        options.stopNow = { await stop.wait(for: .stopping) }
        let watcher = Task {
            while !server.requests().contains(where: { $0.argv.starts(with: ["token", "create"]) }) { try? await Task.sleep(for: .milliseconds(20)) }
            stop.request()
        }
        let entries = try await SyncEngine(store: world.store, options: options, logger: .disabled).run()
        watcher.cancel()
        let renewal = try #require(entries.first?.outcome.tokenRenewal)
        #expect(renewal.successor == nil)
        #expect(renewal.failure?.isStop == true, "\(String(describing: renewal.failure))")

        server.clearFaults()
        let next = try await world.engine(now: later).run()
        #expect(next.first?.outcome.tokenRenewal?.successor != nil)
    }

    @Test("a stop while a run's removal waits on `token revoke` cancels it: the run ends at once, the account kept removing with its token")
    func stopDuringRemoval() async throws {
        let (server, world) = (try FakeGitbayServer(), try await ReconcileWorld())
        defer { server.stop() }
        let (alice, token) = try await world.signInMinted(server, "alice", name: "gitbay-sync-laptop-gbs-hhhhhh")
        try await world.setToken()
        _ = try await world.run()
        try await world.store.setState(.removing, ofAccount: alice.id)
        // The revocation hangs past the test's time limit: only the stop can end it.
        server.inject(.hang, command: "token revoke", user: "alice")
        let stop = ShutdownSignal()
        stop.claim()
        var options = world.engine(client: ReconcileWorld.patientClient).options
        options.stopNow = { await stop.wait(for: .stopping) }
        let watcher = Task {
            while !server.requests().contains(where: { $0.argv.starts(with: ["token", "revoke"]) }) { try? await Task.sleep(for: .milliseconds(20)) }
            stop.request()
        }
        let entries = try await SyncEngine(store: world.store, options: options, logger: .disabled, shutdown: stop).run()
        watcher.cancel()
        guard case .kept(_, let hold) = try #require(entries.first?.removal) else {
            Issue.record("a stop during the run's revocation keeps the account: \(entries)")
            return
        }
        #expect(hold.revocationInterrupted, "cancelled, not failed otherwise: \(hold)")
        #expect(try await world.store.account(id: alice.id)?.state == .removing)
        #expect(try await world.store.apiToken(ofAccount: alice.id) == Secret(token))
        #expect(server.devices(of: "alice").isEmpty, "the deregistration before it stands")
    }
}
