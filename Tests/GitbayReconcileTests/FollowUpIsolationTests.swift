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

/// What a run does for an account after its pass (its removal finished, its token renewed)
/// never waits on another account's server: alice's server hangs in her renewal or her
/// removal, and bob's is done and told while she still waits.
@Suite("A run's removals and renewals wait on no other account")
struct FollowUpIsolationTests {
    static let day: TimeInterval = 86_400
    /// The entries a run told as it went, and a wait for one of them.
    final class Told: Sendable {
        private let entries = Mutex<[SyncEngine.RunEntry]>([])

        func take(_ event: SyncEngine.RunProgress) {
            if case .finished(let entry) = event { entries.withLock { $0.append(entry) } }
        }

        /// The first entry told that `matches`, waiting up to `limit` for it.
        func first(within limit: Duration, where matches: (SyncEngine.RunEntry) -> Bool) async -> SyncEngine.RunEntry? {
            let deadline = ContinuousClock.now + limit
            while ContinuousClock.now < deadline {
                if let entry = entries.withLock({ $0.first(where: matches) }) { return entry }
                try? await Task.sleep(for: .milliseconds(20))
            }
            return nil
        }
    }

    /// alice on one server, bob on another, both with minted tokens and registered.
    static func twoServers() async throws -> (FakeGitbayServer, FakeGitbayServer, ReconcileWorld, AccountRecord, AccountRecord) {
        let (first, second) = (try FakeGitbayServer(), try FakeGitbayServer())
        let world = try await ReconcileWorld()
        let marker = try await world.store.device().installMarker
        let (alice, _) = try await world.signInMinted(first, "alice", name: "gitbay-sync-laptop-" + marker)
        let (bob, _) = try await world.signInMinted(second, "bob", name: "gitbay-sync-desk-" + marker)
        try await world.setToken()
        _ = try await world.run()
        return (first, second, world, alice, bob)
    }

    @Test("alice's server hangs in her token's renewal: bob's renewal is done and told meanwhile")
    func renewalWaitsOnNoOne() async throws {
        let (first, second, world, alice, bob) = try await Self.twoServers()
        defer { second.stop() }
        first.inject(.hang, command: "token create", user: "alice")
        let later: @Sendable () -> Date = { Date().addingTimeInterval(61 * Self.day) }
        let told = Told()
        let engine = world.engine(client: ReconcileWorld.patientClient, now: later)
        let run = Task { try await engine.run(progress: told.take) }

        let bobs = await told.first(within: .seconds(30)) { $0.outcome.accountID == bob.id }
        first.stop()
        let entries = try await run.value
        #expect(bobs?.outcome.tokenRenewal?.successor != nil, "bob's renewal was told while alice's server hung")
        #expect(entries.first { $0.outcome.accountID == bob.id }?.outcome.tokenRenewal?.predecessorRevoked == true)
        #expect(entries.first { $0.outcome.accountID == alice.id }?.outcome.tokenRenewal?.successor == nil)
    }

    @Test("alice's server hangs as her removal revokes her token: bob's removal finishes and is told meanwhile")
    func removalWaitsOnNoOne() async throws {
        let (first, second, world, alice, bob) = try await Self.twoServers()
        defer { second.stop() }
        try await world.store.setState(.removing, ofAccount: alice.id)
        try await world.store.setState(.removing, ofAccount: bob.id)
        first.inject(.hang, command: "token revoke", user: "alice")
        let told = Told()
        let engine = world.engine(client: ReconcileWorld.patientClient)
        let run = Task { try await engine.run(progress: told.take) }

        let bobs = await told.first(within: .seconds(30)) { $0.outcome.accountID == bob.id && $0.removal != nil }
        first.stop()
        let entries = try await run.value
        guard case .removed = bobs?.removal else {
            Issue.record("bob's removal was not told while alice's server hung: \(String(describing: bobs?.removal))")
            return
        }
        #expect(try await world.store.account(id: bob.id) == nil)
        #expect(try await world.store.account(id: alice.id)?.state == .removing)
        #expect(entries.count == 2)
    }

    @Test("alice's pass hangs on her server: bob's renewal is done and told meanwhile, not after her pass")
    func hungPassHoldsNoRenewal() async throws {
        let (first, second, world, alice, bob) = try await Self.twoServers()
        defer { second.stop() }
        first.inject(.hang, command: "notifications device list", user: "alice")
        let later: @Sendable () -> Date = { Date().addingTimeInterval(61 * Self.day) }
        let told = Told()
        let engine = world.engine(client: ReconcileWorld.patientClient, now: later)
        let run = Task { try await engine.run(progress: told.take) }

        let bobs = await told.first(within: .seconds(20)) { $0.outcome.accountID == bob.id }
        first.stop()
        let entries = try await run.value
        #expect(bobs?.outcome.tokenRenewal?.successor != nil, "bob's renewal was told while alice's pass hung")
        #expect(entries.first { $0.outcome.accountID == bob.id }?.outcome.tokenRenewal?.predecessorRevoked == true)
        #expect(entries.first { $0.outcome.accountID == alice.id }?.outcome.action == .failed)
    }

    @Test("alice's pass hangs on her server: bob's removal finishes and is told meanwhile, not after her pass")
    func hungPassHoldsNoRemoval() async throws {
        let (first, second, world, alice, bob) = try await Self.twoServers()
        defer { second.stop() }
        try await world.store.setState(.removing, ofAccount: bob.id)
        first.inject(.hang, command: "notifications device list", user: "alice")
        let told = Told()
        let engine = world.engine(client: ReconcileWorld.patientClient)
        let run = Task { try await engine.run(progress: told.take) }

        let bobs = await told.first(within: .seconds(20)) { $0.outcome.accountID == bob.id && $0.removal != nil }
        first.stop()
        let entries = try await run.value
        guard case .removed = bobs?.removal else {
            Issue.record("bob's removal was not told while alice's pass hung: \(String(describing: bobs?.removal))")
            return
        }
        #expect(try await world.store.account(id: bob.id) == nil)
        #expect(entries.first { $0.outcome.accountID == bob.id }?.removal == bobs?.removal)
        #expect(entries.first { $0.outcome.accountID == alice.id }?.outcome.action == .failed)
    }
}
