import GitbaySupport

/// The timer of `run --every`: run a cycle, sleep the period give or take the jitter, repeat,
/// until the shutdown signal asks it to stop.
///
/// The first shutdown request stops new work: no further cycle starts and a sleep ends at
/// once; a cycle in flight may finish within `grace`, and is cancelled after it. A second
/// request cancels the cycle at once. The sleep and the randomness are parameters, so tests
/// run cycles without waiting.
struct PeriodicRun: Sendable {
    /// How a run ended.
    enum Ending: Sendable, Equatable {
        /// Stopped on request, with any cycle in flight finished or cut off at the grace period.
        case stopped
        /// A second request cancelled the cycle in flight.
        case cancelled
    }

    let interval: Duration
    /// The share of the interval a sleep may be longer or shorter by (0.1: ±10%).
    let jitter: Double
    /// How long a cycle in flight may go on after the first request to stop.
    let grace: Duration
    let shutdown: ShutdownSignal
    /// Returns a number in `0..<1`.
    let random: @Sendable () -> Double
    /// Sleeps; throws when cancelled.
    let sleep: @Sendable (Duration) async throws -> Void

    /// The sleep after a cycle: the interval moved by up to `jitter` either way, so many
    /// devices started together drift apart instead of calling a server in step.
    func nextSleep() -> Duration {
        let factor = 1 + jitter * (2 * random() - 1)
        let milliseconds = Double(interval.components.seconds) * 1000 * factor
        return .milliseconds(Int64(milliseconds.rounded()))
    }

    /// Runs `cycle` until stopped. It gets its 1-based number and the sleep planned after it
    /// (which does not happen when a stop was requested meanwhile). An error a cycle throws
    /// while no stop was requested ends the run and is rethrown.
    func run(cycle: @escaping @Sendable (_ number: Int, _ nextSleep: Duration) async throws -> Void) async throws -> Ending {
        var number = 0
        while shutdown.phase == .running {
            number += 1
            let (current, pause) = (number, nextSleep())
            try await runCycle { try await cycle(current, pause) }
            guard shutdown.phase == .running, await sleepUnlessStopped(pause) else { break }
        }
        return shutdown.phase == .cancelling ? .cancelled : .stopped
    }

    /// Runs one cycle in its own task, cancelling it when the grace after a stop request runs
    /// out or a second request comes.
    private func runCycle(_ cycle: @escaping @Sendable () async throws -> Void) async throws {
        let work = Task { try await cycle() }
        let watcher = Task { [shutdown, grace] in
            await Self.graceOver(shutdown, grace: grace)
            guard !Task.isCancelled else { return }
            work.cancel()
        }
        defer { watcher.cancel() }
        do {
            try await work.value
        } catch {
            // What a cancelled cycle throws is the cancellation, not a fault.
            if shutdown.phase == .running { throw error }
        }
    }

    /// Returns once `grace` has passed since the first stop request, or at the second (or
    /// when the calling task is cancelled). The grace is real time, whatever sleep the period uses.
    static func graceOver(_ shutdown: ShutdownSignal, grace: Duration) async {
        await shutdown.wait(for: .stopping)
        guard !Task.isCancelled else { return }
        await withTaskGroup(of: Void.self) { group in
            group.addTask { try? await Task.sleep(for: grace) }
            group.addTask { await shutdown.wait(for: .cancelling) }
            await group.next()
            group.cancelAll()
        }
    }

    /// Sleeps `duration`; returns false as soon as a stop is requested.
    private func sleepUnlessStopped(_ duration: Duration) async -> Bool {
        await withTaskGroup(of: Bool.self) { group in
            group.addTask { [sleep] in (try? await sleep(duration)) != nil }
            group.addTask { [shutdown] in
                await shutdown.wait(for: .stopping)
                return false
            }
            let slept = await group.next() ?? false
            group.cancelAll()
            return slept && shutdown.phase == .running
        }
    }
}
