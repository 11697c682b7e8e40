import Dispatch
import FoundationEssentials
import Synchronization
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
/// caller should end the process the ordinary way.
public final class ShutdownSignal: Sendable {
    /// How far the shutdown has gone.
    public enum Phase: Int, Sendable, Comparable {
        case running, stopping, cancelling

        public static func < (lhs: Phase, rhs: Phase) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    /// What a request did.
    public enum Response: Sendable, Equatable {
        /// Nothing handles shutdown gracefully: end the process.
        case unhandled
        /// A running command was asked to stop (or, a second time, to cancel).
        case delivered(Phase)
    }

    private struct State {
        var phase = Phase.running
        var claimed = false
        var nextWaiter = 0
        var waiters: [Int: (phase: Phase, continuation: CheckedContinuation<Void, Never>)] = [:]
    }

    private let state = Mutex(State())

    public init() {}

    /// Says a command now handles requests gracefully.
    public func claim() {
        state.withLock { $0.claimed = true }
    }

    /// The current phase.
    public var phase: Phase { state.withLock { $0.phase } }

    /// Moves one phase on (running -> stopping -> cancelling) and wakes whoever waits for it.
    @discardableResult
    public func request() -> Response {
        let (response, woken) = state.withLock { state -> (Response, [CheckedContinuation<Void, Never>]) in
            guard state.claimed else { return (.unhandled, []) }
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
    public func wait(for phase: Phase) async {
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

    /// Routes SIGTERM and SIGINT to `request()`: the default action is turned off and each
    /// signal is read from a dispatch source instead. When no command handles shutdown, the
    /// signal's default action is restored and the signal raised again, so a plain command
    /// ends as it always did. Keep the sources it returns for as long as the signals should
    /// be handled.
    public func trapTerminationSignals() -> [any DispatchSourceSignal] {
        [SIGTERM, SIGINT].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { [self] in
                if request() == .unhandled { Self.endProcess(by: number) }
            }
            source.resume()
            return source
        }
    }

    /// Ends the process as the signal's default action would. The dispatch source may keep
    /// the signal blocked, so it is unblocked on this thread before it is raised again; the
    /// exit status a shell gives a death by signal follows in case it is still not delivered.
    private static func endProcess(by number: Int32) -> Never {
        signal(number, SIG_DFL)
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, number)
        pthread_sigmask(SIG_UNBLOCK, &set, nil)
        raise(number)
        exit(128 + number)
    }
}
