import Foundation
import Testing
@testable import GitbaySync

/// Model-based tests of ownership: random schedules of this device's commands, other devices
/// and accounts acting on the same instances, reaped rows, reused ids and crashes at any
/// request, against two fake instances (v1.32.0 or v1.32.1 semantics). After every step:
/// (1) no row this install did not make was removed; after every fault-free run (2) each
/// account holds exactly its desired rows, (3) the next run writes nothing, and (4) an
/// account is reported registered only when its row holds the current token.
///
/// `GITBAY_SYNC_MODEL_SEED` replays a seed; `GITBAY_SYNC_MODEL_SCHEDULES` runs more schedules
/// (default 24) and `GITBAY_SYNC_MODEL_STEPS` makes them longer (default 40). A failure
/// prints the seed and the shortest schedule that still fails, as Swift source to add to
/// `regressions`.
@Suite("Ownership model")
struct OwnershipModelTests {
    static let seed = SplitMix64.seed(from: "GITBAY_SYNC_MODEL_SEED")
    static let schedules = SplitMix64.count(from: "GITBAY_SYNC_MODEL_SCHEDULES", default: 24)
    static let steps = SplitMix64.count(from: "GITBAY_SYNC_MODEL_STEPS", default: 40)

    /// Seeds for the random schedules, printed so a failure can be replayed.
    static var seeds: [UInt64] {
        print("ownership model: seed \(seed), \(schedules) schedules of \(steps) steps")
        var random = SplitMix64(seed: seed)
        return (0..<schedules).map { _ in random.next() }
    }

    @Test("random schedules of commands, other devices, reaps and crashes keep every invariant", arguments: seeds)
    func randomSchedule(seed: UInt64) async throws {
        var generator = ModelScheduleGenerator(seed: seed)
        let schedule = generator.schedule(named: "seed \(seed)", steps: Self.steps)
        guard let violation = await Self.violation(in: schedule) else { return }
        let shortest = await Self.shrink(schedule, failingAt: violation.step)
        let replayed = await Self.violation(in: shortest) ?? violation
        Issue.record("""
            schedule seed \(seed) (from GITBAY_SYNC_MODEL_SEED=\(Self.seed)) broke an invariant \(violation)
            shortest failing schedule (\(shortest.steps.count) steps), \(replayed):
            \(shortest.source)
            """)
    }

    @Test("schedules that once failed", arguments: ModelRegressions.all)
    func regression(_ schedule: ModelSchedule) async throws {
        let violation = await Self.violation(in: schedule)
        #expect(violation == nil, "\(violation.map { "\($0)" } ?? "")")
    }

    /// Replays `schedule` on a fresh world; the first broken invariant, if any.
    static func violation(in schedule: ModelSchedule) async -> ModelViolation? {
        do {
            let world = try await ModelWorld(schedule)
            for (number, step) in schedule.steps.enumerated() {
                try await world.perform(step, number: number)
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
    static func shrink(_ schedule: ModelSchedule, failingAt step: Int) async -> ModelSchedule {
        var shortest = schedule
        if step >= 0 { shortest.steps = Array(schedule.steps.prefix(step + 1)) }
        var index = shortest.steps.count - 1
        while index >= 0 {
            var candidate = shortest
            candidate.steps.remove(at: index)
            if await violation(in: candidate) != nil { shortest = candidate }
            index -= 1
        }
        return shortest
    }
}
