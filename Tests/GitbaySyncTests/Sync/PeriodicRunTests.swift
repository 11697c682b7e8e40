import Foundation
import TestSupport
import Testing

@testable import GitbayAPI
@testable import GitbayReconcile
@testable import GitbayState
@testable import GitbaySupport
@testable import GitbaySync
@testable import PushResolve

@Suite("Periodic run and shutdown", .timeLimit(.minutes(1)))
struct PeriodicRunTests {
    /// A timer whose sleeps return at once (counted) unless `sleep` says otherwise.
    static func timer(
        _ shutdown: ShutdownSignal, grace: Duration = .seconds(600), random: Double = 0.5,
        sleep: @escaping @Sendable (Duration) async throws -> Void = { _ in }
    ) -> PeriodicRun {
        shutdown.claim()
        return PeriodicRun(interval: .seconds(600), jitter: 0.1, grace: grace, shutdown: shutdown, random: { random }, sleep: sleep)
    }

    struct Jitter: Sendable, CustomStringConvertible {
        let random: Double
        let milliseconds: Int64
        var description: String { "random \(random) -> \(milliseconds) ms" }
    }

    @Test(
        "sleeps the period give or take a tenth",
        arguments: [
            Jitter(random: 0, milliseconds: 540_000), Jitter(random: 0.25, milliseconds: 570_000),
            Jitter(random: 0.5, milliseconds: 600_000), Jitter(random: 0.75, milliseconds: 630_000), Jitter(random: 0.999999, milliseconds: 660_000),
        ])
    func jitter(_ example: Jitter) {
        let timer = Self.timer(ShutdownSignal(), random: example.random)
        #expect(timer.nextSleep() == .milliseconds(example.milliseconds))
    }

    @Test("a stop requested while sleeping ends the sleep at once and starts no cycle")
    func stopWhileSleeping() async throws {
        let shutdown = ShutdownSignal()
        let sleeps = LockedBox<[Duration]>([])
        let cycles = LockedBox<[Int]>([])
        let timer = Self.timer(shutdown) { duration in
            sleeps.mutate { $0.append(duration) }
            if sleeps.value.count == 3 {
                shutdown.request()
                // A real sleep of an hour: only the stop request can end it.
                try await Task.sleep(for: .seconds(3600))
            }
        }
        let ending = try await timer.run { number, _ in cycles.mutate { $0.append(number) } }
        #expect(ending == .stopped)
        #expect(cycles.value == [1, 2, 3])
        #expect(sleeps.value == Array(repeating: .seconds(600), count: 3))
    }

    @Test("a stop requested during a cycle lets it finish and starts no other")
    func stopDuringCycle() async throws {
        let shutdown = ShutdownSignal()
        let finished = LockedBox<[Int]>([])
        let timer = Self.timer(shutdown, grace: .seconds(600)) { _ in Issue.record("no sleep after a stop") }
        let ending = try await timer.run { number, _ in
            shutdown.request()
            try await Task.sleep(for: .milliseconds(50))
            finished.mutate { $0.append(number) }
        }
        #expect(ending == .stopped)
        #expect(finished.value == [1])
        #expect(shutdown.phase == .stopping)
    }

    @Test("a cycle still running when the grace runs out is cancelled, and the run ends as stopped")
    func graceRunsOut() async throws {
        let shutdown = ShutdownSignal()
        let cancelled = LockedBox(false)
        let timer = Self.timer(shutdown, grace: .zero)
        let ending = try await timer.run { _, _ in
            shutdown.request()
            do {
                try await Task.sleep(for: .seconds(3600))
            } catch {
                cancelled.mutate { $0 = true }
                throw error
            }
        }
        #expect(ending == .stopped)
        #expect(cancelled.value)
    }

    @Test("a second request cancels the cycle at once")
    func secondRequestCancels() async throws {
        let shutdown = ShutdownSignal()
        let cancelled = LockedBox(false)
        let timer = Self.timer(shutdown, grace: .seconds(3600))
        let ending = try await timer.run { _, _ in
            #expect(shutdown.request() == .delivered(.stopping))
            #expect(shutdown.request() == .delivered(.cancelling))
            do {
                try await Task.sleep(for: .seconds(3600))
            } catch {
                cancelled.mutate { $0 = true }
            }
        }
        #expect(ending == .cancelled)
        #expect(cancelled.value)
    }

    @Test("an error a cycle throws while running ends the run")
    func cycleErrorEnds() async throws {
        struct Broken: Error {}
        let timer = Self.timer(ShutdownSignal())
        await #expect(throws: Broken.self) {
            _ = try await timer.run { number, _ in if number == 2 { throw Broken() } }
        }
    }

    @Test("a request nobody claimed is left to the process's default action")
    func unclaimed() {
        let shutdown = ShutdownSignal()
        #expect(shutdown.request() == .unhandled)
        #expect(shutdown.phase == .running)
    }

    @Test("a step that handles requests gets them while it runs, claimed or not; after it they are unhandled again")
    func handledDuringStep() async {
        let shutdown = ShutdownSignal()
        let during = await shutdown.handlingRequests { shutdown.request() }
        #expect(during == .delivered(.stopping))
        #expect(shutdown.phase == .stopping)
        #expect(shutdown.request() == .unhandled)
        #expect(shutdown.phase == .stopping)
    }

    @Test("waiting for a phase already reached returns at once; a cancelled wait returns too")
    func waiting() async {
        let shutdown = ShutdownSignal()
        shutdown.claim()
        shutdown.request()
        await shutdown.wait(for: .stopping)
        let waiter = Task { await shutdown.wait(for: .cancelling) }
        waiter.cancel()
        await waiter.value
        #expect(shutdown.phase == .stopping)
    }
}
