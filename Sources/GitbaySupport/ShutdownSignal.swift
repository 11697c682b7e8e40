import Synchronization

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The process's request to end, as a long-running command sees it: the first request asks it
/// to stop (finish what is in flight, start nothing new), the second to cancel at once.
///
/// The executable turns SIGTERM and SIGINT into `request()`; tests call `request()` directly.
/// A command that cannot stop gracefully never `claim()`s it, and then a request means the
/// caller should end the process the ordinary way, except while a step that can stop cleanly
/// runs (`handlingRequests`). Whatever ends the process on a signal first runs the cleanups of
/// the steps in progress (`withCleanup`), such as turning echo back on.
package final class ShutdownSignal: Sendable {
    /// How far the shutdown has gone.
    package enum Phase: Int, Sendable, Comparable {
        case running, stopping, cancelling

        package static func < (lhs: Phase, rhs: Phase) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    /// What a request did.
    package enum Response: Sendable, Equatable {
        /// Nothing handles shutdown gracefully: end the process.
        case unhandled
        /// A running command was asked to stop (or, a second time, to cancel).
        case delivered(Phase)
    }

    private struct State {
        var phase = Phase.running
        var claimed = false
        /// The signal behind the first request, when a signal made it.
        var signal: Int32?
        /// Steps running that handle a request themselves.
        var handlers = 0
        var nextWaiter = 0
        var waiters: [Int: (phase: Phase, continuation: CheckedContinuation<Void, Never>)] = [:]
        var nextCleanup = 0
        var cleanups: [Int: @Sendable () -> Void] = [:]
    }

    private let state = Mutex(State())
    /// Held while the process runs its cleanups and ends, so that a second signal meanwhile
    /// waits for them instead of ending the process half-way through.
    private let ending = Mutex(())

    package init() {}

    /// Says a command now handles requests gracefully.
    package func claim() {
        state.withLock { $0.claimed = true }
    }

    /// The current phase.
    package var phase: Phase { state.withLock { $0.phase } }

    /// The signal behind the first request that was delivered (nil: none, or `request()` was
    /// called without one).
    package var stopSignal: Int32? { state.withLock { $0.signal } }

    /// Moves one phase on (running -> stopping -> cancelling) and wakes whoever waits for it;
    /// `signal` is the signal that asks, if one does.
    @discardableResult
    package func request(signal: Int32? = nil) -> Response {
        let (response, woken) = state.withLock { state -> (Response, [CheckedContinuation<Void, Never>]) in
            guard state.claimed || state.handlers > 0 else { return (.unhandled, []) }
            if state.phase == .running { state.signal = signal }
            state.phase = state.phase == .running ? .stopping : .cancelling
            let phase = state.phase
            let due = state.waiters.filter { $0.value.phase <= phase }
            for key in due.keys { state.waiters[key] = nil }
            return (.delivered(phase), due.values.map(\.continuation))
        }
        woken.forEach { $0.resume() }
        return response
    }

    /// Returns once the shutdown has reached `phase`, or when the calling task is cancelled.
    package func wait(for phase: Phase) async {
        let key = state.withLock { state -> Int in
            state.nextWaiter += 1
            return state.nextWaiter
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow = state.withLock { state -> Bool in
                    if state.phase >= phase || Task.isCancelled { return true }
                    state.waiters[key] = (phase, continuation)
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            let waiter = state.withLock { $0.waiters.removeValue(forKey: key) }
            waiter?.continuation.resume()
        }
    }

    /// Runs `body`, a step that stops cleanly when asked, with requests delivered to it (it
    /// watches `phase`) rather than ending the process, even when no command claimed them.
    package func handlingRequests<T>(
        isolation: isolated (any Actor)? = #isolation, _ body: () async throws -> T
    ) async rethrows -> T {
        state.withLock { $0.handlers += 1 }
        defer { state.withLock { $0.handlers -= 1 } }
        return try await body()
    }

    /// Runs `body` with `cleanup` to be run first should a signal end the process meanwhile.
    /// Cleanups run on the thread that reads the signal, the latest first.
    ///
    /// `setUp`, a change that `cleanup` undoes (turning echo off, say), runs first and never
    /// while a signal is ending the process: that signal either comes before it, and the change
    /// is never made, or finds `cleanup` registered.
    package func withCleanup<T>(
        setUp: () -> Void = {}, onSignal cleanup: @escaping @Sendable () -> Void, _ body: () throws -> T
    ) rethrows -> T {
        let key = ending.withLock { _ in
            setUp()
            return addCleanup(cleanup)
        }
        defer { state.withLock { _ = $0.cleanups.removeValue(forKey: key) } }
        return try body()
    }

    /// `withCleanup` for an asynchronous step.
    package func withCleanup<T>(
        onSignal cleanup: @escaping @Sendable () -> Void, isolation: isolated (any Actor)? = #isolation,
        _ body: () async throws -> T
    ) async rethrows -> T {
        let key = addCleanup(cleanup)
        defer { state.withLock { _ = $0.cleanups.removeValue(forKey: key) } }
        return try await body()
    }

    private func addCleanup(_ cleanup: @escaping @Sendable () -> Void) -> Int {
        state.withLock { state in
            state.nextCleanup += 1
            state.cleanups[state.nextCleanup] = cleanup
            return state.nextCleanup
        }
    }

    /// Runs the cleanups, then ends the process as the signal's default action would. The
    /// thread may have the signal blocked (libdispatch's threads do), so it is unblocked on this
    /// thread before it is raised again; the exit status a shell gives a death by signal follows in case it is
    /// still not delivered. A command that stopped on a signal ends this way too, so that the
    /// shell (a loop in a script) sees the signal.
    package func endProcess(by number: Int32) -> Never {
        ending.withLock { _ -> Never in
            let cleanups = state.withLock { state in
                defer { state.cleanups = [:] }
                return state.cleanups.sorted { $0.key > $1.key }.map(\.value)
            }
            cleanups.forEach { $0() }
            signal(number, SIG_DFL)
            var set = sigset_t()
            sigemptyset(&set)
            sigaddset(&set, number)
            pthread_sigmask(SIG_UNBLOCK, &set, nil)
            raise(number)
            exit(128 + number)
        }
    }
}
