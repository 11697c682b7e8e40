import Foundation
import GitbayFake
import ReconcileSupport
import Testing

@testable import GitbayAPI
@testable import GitbayReconcile
@testable import GitbayState
@testable import GitbaySupport

/// What a run costs the state database, and how it spreads accounts over instances.
@Suite("Run work")
struct RunWorkTests {
    @Test("a steady run over accounts of two instances makes one write transaction, recording every account's success")
    func steadyRunWritesOnce() async throws {
        let (one, two) = (try FakeGitbayServer(), try FakeGitbayServer())
        let world = try await ReconcileWorld()
        for user in ["alice", "bob", "carol"] { try await world.signIn(one, user) }
        for user in ["dave", "erin", "frank"] { try await world.signIn(two, user) }
        try await world.setToken()
        _ = try await world.run()
        _ = try await world.run()
        let before = try await world.store.runFacts().statuses
        one.resetRequests()
        two.resetRequests()

        let counted = await world.store.databaseCounters().writeTransactions
        let outcomes = try await world.run()
        #expect(await world.store.databaseCounters().writeTransactions - counted <= 1)
        let requests = one.requests() + two.requests()
        #expect(requests.count == 6)
        #expect(requests.allSatisfy { $0.status == 304 }, "every list answered Not Modified: \(requests.map(\.status))")
        #expect(outcomes.values.filter { $0.action == .unchanged }.count == 2, "one holder on each instance")
        #expect(outcomes.values.filter { $0.action == .shadowed }.count == 4)
        #expect(outcomes.values.allSatisfy { $0.writes == 0 && !$0.isFailure })
        for (id, status) in try await world.store.runFacts().statuses {
            let earlier = try #require(before[id])
            let (then, now) = (try #require(earlier.lastSuccessAt), try #require(status.lastSuccessAt))
            #expect(now > then, "account \(id)'s success is recorded")
            #expect(status.condition == earlier.condition && status.listETag == earlier.listETag)
        }
    }

    @Test("a steady run whose verdicts cannot be recorded (another writer holds the database) says so for each of those accounts")
    func steadyVerdictsUnrecorded() async throws {
        let server = try FakeGitbayServer()
        let world = try await ReconcileWorld()
        for user in ["alice", "bob"] { try await world.signIn(server, user) }
        try await world.setToken()
        _ = try await world.run()
        _ = try await world.run()

        let writer = try Database(path: world.folder.databasePath, mode: .readWrite, busyTimeoutMilliseconds: 0)
        try writer.execute("BEGIN IMMEDIATE")
        let outcomes = try await world.run()
        try writer.execute("ROLLBACK")
        #expect(outcomes.count == 2)
        #expect(outcomes.values.allSatisfy { $0.action == .failed && $0.isFailure }, "\(outcomes.values.map(\.action))")
    }

    @Test("a first run records the shadowed accounts' verdicts together: its write transactions do not grow with them")
    func firstRunWritesDoNotGrowWithShadowedAccounts() async throws {
        var counts: [Int] = []
        for perInstance in [2, 8] {
            let (one, two) = (try FakeGitbayServer(), try FakeGitbayServer())
            // Clocks a second apart: rows of the same id added at the same millisecond on both
            // would leave each in doubt of the other, and the run would check both again.
            (one.now, two.now) = (Date(timeIntervalSince1970: 1_800_000_000), Date(timeIntervalSince1970: 1_800_000_001))
            let world = try await ReconcileWorld()
            for index in 0..<perInstance {
                try await world.signIn(one, "a\(index)")
                try await world.signIn(two, "b\(index)")
            }
            try await world.setToken()
            let counted = await world.store.databaseCounters().writeTransactions
            let outcomes = try await world.run()
            counts.append(await world.store.databaseCounters().writeTransactions - counted)
            #expect(outcomes.values.filter { $0.action == .shadowed }.count == 2 * (perInstance - 1))
            #expect(outcomes.values.allSatisfy { !$0.isFailure })
            let statuses = try await world.store.runFacts().statuses
            #expect(statuses.count == 2 * perInstance && statuses.values.allSatisfy { $0.lastSuccessAt != nil && $0.listETag != nil })
            // The next run finds every verdict recorded: every list is answered Not Modified.
            one.resetRequests()
            two.resetRequests()
            _ = try await world.run()
            #expect((one.requests() + two.requests()).allSatisfy { $0.status == 304 })
        }
        #expect(counts[0] == counts[1], "write transactions of a first run with 2 and 8 accounts per instance: \(counts)")
    }

    @Test("accounts of different instances are in flight together; one instance's are bounded")
    func instancesInFlightTogether() async throws {
        let (slow, quick) = (try FakeGitbayServer(), try FakeGitbayServer())
        let world = try await ReconcileWorld()
        let slowUsers = ["alice", "bob", "carol", "dave", "erin"]
        for user in slowUsers { try await world.signIn(slow, user) }
        for user in ["frank", "grace"] { try await world.signIn(quick, user) }
        slow.inject(.hang, command: "notifications device list", times: slowUsers.count)

        let reconciler = Reconciler(
            store: world.store, options: .init(concurrency: 64, perInstance: 2, client: ReconcileWorld.client), logger: .disabled
        )
        let run = Task { try await reconciler.reconcile() }
        let answered = { quick.requests().filter { $0.status != 0 }.count }
        for _ in 0..<500 where answered() < 2 || slow.requests().count < 2 {
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(answered() == 2, "the quick instance's accounts ran while the slow one's hung")
        // Both quick accounts are done, so slots are free: only the per-instance bound holds
        // the other slow accounts back.
        try await Task.sleep(for: .milliseconds(200))
        #expect(slow.requests().count == 2)

        slow.stop()
        let outcomes = try await run.value
        #expect(outcomes.filter { !$0.isFailure }.map(\.account).sorted() == ["frank", "grace"].map { "\($0)@127.0.0.1:\(quick.port)" })
    }
}
