import Foundation
import TestSupport
import Testing
import TransportSupport

@testable import GitbayAPI
@testable import GitbayReconcile
@testable import GitbayState
@testable import GitbaySupport
@testable import GitbaySync
@testable import PushResolve

/// Model-based tests of ownership: random schedules of this device's commands, other devices
/// and accounts acting on the same instances, reaped rows, reused ids and crashes at any
/// request, against two fake instances (v1.32.0 or v1.32.1 semantics). After every step:
/// (1) no row this install did not make was removed; after every fault-free run (2) each
/// account holds exactly its desired rows, (3) the next run writes nothing, and (4) an
/// account is reported registered only when its row holds the current token. Accounts 0, 2
/// and 4 keep their API token in a real Secret Service, the others in the database (all in
/// the database on the quarter of machines with no session bus, until a keyring starts on
/// some), and runs rotate both kinds near expiry, crashes included: (5) to (7) in
/// `ModelTokens`, (8), (9) and (12) in `ModelKeyring`.
/// Accounts sign in again with a pasted token, named or not, or over `login --ssh` through a
/// real sshd, and the user revokes their tokens on the web: (11) in `ModelWorld+Refused`.
/// Before every run that nothing stops, (10) a dry run writes nothing and plans exactly that
/// run's device writes, where the reference says it does (`ModelDryRun`).
///
/// `GITBAY_SYNC_MODEL_SEED` replays a seed; `GITBAY_SYNC_MODEL_SCHEDULES` runs more schedules
/// (default 100) and `GITBAY_SYNC_MODEL_STEPS` makes them longer (default 40). A failure
/// prints the seed and the shortest schedule that still fails, as Swift source to add to
/// `regressions`.
@Suite("Ownership model")
struct OwnershipModelTests {
    static let seed = SplitMix64.seed(from: "GITBAY_SYNC_MODEL_SEED")
    static let schedules = SplitMix64.count(from: "GITBAY_SYNC_MODEL_SCHEDULES", default: 100)
    static let steps = SplitMix64.count(from: "GITBAY_SYNC_MODEL_STEPS", default: 40)
    /// Schedules run over real HTTP on 127.0.0.1 (default 8), beside those in memory: over
    /// libcurl, or URLSession with `GITBAY_SYNC_TEST_TRANSPORT=urlsession`.
    static let httpSchedules = SplitMix64.count(from: "GITBAY_SYNC_MODEL_HTTP_SCHEDULES", default: 8)

    /// Schedules replayed at once: each has two servers and its own database, and hundreds at
    /// a time would run out of file descriptors.
    static let width = 3

    @Test("random schedules of commands, other devices, reaps and crashes keep every invariant")
    func randomSchedules() async {
        await Self.randomSchedules(Self.schedules, over: .memory)
    }

    @Test("the same, over real HTTP to the servers on 127.0.0.1 (libcurl, or URLSession)")
    func randomSchedulesOverHTTP() async {
        await Self.randomSchedules(Self.httpSchedules, over: .http)
    }

    static func randomSchedules(_ count: Int, over transport: ModelWorld.Transport) async {
        print(
            "ownership model (\(transport == .http ? ServerTransport.chosen.name : "in memory")): seed \(Self.seed), \(count) schedules of \(Self.steps) steps (replay with GITBAY_SYNC_MODEL_SEED=\(Self.seed))"
        )
        var random = SplitMix64(seed: Self.seed ^ (transport == .http ? 0x4854_5450 : 0))
        var pending = (0..<count).map { _ in random.next() }
        await withTaskGroup(of: String?.self) { group in
            func startNext() {
                guard !pending.isEmpty else { return }
                let seed = pending.removeFirst()
                group.addTask { await Self.failure(ofScheduleSeeded: seed, over: transport) }
            }
            for _ in 0..<Self.width { startNext() }
            for await failure in group {
                if let failure { Issue.record(Comment(rawValue: failure)) }
                startNext()
            }
        }
    }

    /// Runs the schedule drawn from `seed`; on a broken invariant, what to print: the seed and
    /// the shortest schedule that still fails.
    static func failure(ofScheduleSeeded seed: UInt64, over transport: ModelWorld.Transport) async -> String? {
        var generator = ModelScheduleGenerator(seed: seed)
        let schedule = generator.schedule(named: "seed \(seed)", steps: steps)
        guard let violation = await violation(in: schedule, over: transport) else { return nil }
        let shortest = await shrink(schedule, failingAt: violation.step, over: transport)
        let replayed = await Self.violation(in: shortest, over: transport) ?? violation
        return """
            schedule seed \(seed) (from GITBAY_SYNC_MODEL_SEED=\(Self.seed), \(transport)) broke an invariant \(violation)
            shortest failing schedule (\(shortest.steps.count) steps), \(replayed):
            \(shortest.source)
            """
    }

    @Test("schedules that once failed", arguments: ModelRegressions.all)
    func regression(_ schedule: ModelSchedule) async throws {
        let violation = await Self.violation(in: schedule)
        #expect(violation == nil, "\(violation.map { "\($0)" } ?? "")")
    }

    /// Replays `schedule` on a fresh world; the first broken invariant, if any.
    static func violation(in schedule: ModelSchedule, over transport: ModelWorld.Transport = .memory) async -> ModelViolation? {
        do {
            let world = try await ModelWorld(schedule, over: transport)
            for (number, step) in schedule.steps.enumerated() {
                try await world.perform(step, number: number)
            }
            // Every world signs in as it starts: over HTTP, that was a connection at least.
            if transport == .http, world.servers.allSatisfy({ $0.connectionCount == 0 }) {
                return ModelViolation(step: -1, message: "no request reached a server over a TCP connection")
            }
            return nil
        } catch let violation as ModelViolation {
            return violation
        } catch {
            return ModelViolation(step: -1, message: "the world could not be set up: \(error)")
        }
    }

    /// The schedule cut after its failing step, then with every step whose removal keeps it
    /// failing removed, one at a time.
    static func shrink(_ schedule: ModelSchedule, failingAt step: Int, over transport: ModelWorld.Transport) async -> ModelSchedule {
        var shortest = schedule
        if step >= 0 { shortest.steps = Array(schedule.steps.prefix(step + 1)) }
        var index = shortest.steps.count - 1
        while index >= 0 {
            var candidate = shortest
            candidate.steps.remove(at: index)
            if await violation(in: candidate, over: transport) != nil { shortest = candidate }
            index -= 1
        }
        return shortest
    }
}
