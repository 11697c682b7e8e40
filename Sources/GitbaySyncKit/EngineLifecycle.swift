import GitbayReconcile
import Synchronization

/// The registrar is suspended: its database is closed until `resume()`.
public struct GitbaySuspended: Error, Sendable, Equatable {}

/// The engine while its database is open, the work in flight on it, and the request to stop
/// that `suspend()` makes: work starts only while open, and the database closes once the work
/// in flight has ended.
final class EngineLifecycle: Sendable {
    private struct State {
        var engine: SyncEngine?
        var inFlight = 0
        var stopping = false
        var idle: [CheckedContinuation<Void, Never>] = []
        var nextWaiter = 0
        var stopWaiters: [Int: CheckedContinuation<Void, Never>] = [:]
        var cancelledWaiters: Set<Int> = []
    }

    private let state: Mutex<State>

    init(_ engine: SyncEngine) { state = Mutex(State(engine: engine)) }

    /// The engine for one piece of work, counted in flight until `leave()`.
    func enter() throws(GitbaySuspended) -> SyncEngine {
        let engine = state.withLock { state -> SyncEngine? in
            guard !state.stopping, let engine = state.engine else { return nil }
            state.inFlight += 1
            return engine
        }
        guard let engine else { throw GitbaySuspended() }
        return engine
    }

    /// Ends a piece of work `enter()` began.
    func leave() {
        let woken = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.inFlight -= 1
            guard state.inFlight == 0 else { return [] }
            defer { state.idle = [] }
            return state.idle
        }
        woken.forEach { $0.resume() }
    }

    /// True once a suspension asked the work in flight to stop.
    var isStopping: Bool { state.withLock { $0.stopping } }

    /// Returns when a suspension asks the work in flight to stop, or the task is cancelled.
    func stopRequested() async {
        let id = state.withLock { state in
            defer { state.nextWaiter += 1 }
            return state.nextWaiter
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let now = state.withLock { state -> Bool in
                    if state.stopping || state.cancelledWaiters.remove(id) != nil { return true }
                    state.stopWaiters[id] = continuation
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            let waiter = state.withLock { state in
                let waiter = state.stopWaiters.removeValue(forKey: id)
                if waiter == nil { state.cancelledWaiters.insert(id) }
                return waiter
            }
            waiter?.resume()
        }
    }

    /// Asks the work in flight to stop, waits for it to end, and lets go of the engine (and so
    /// of the database); returns the engine it let go of, nil when already suspended.
    func suspend() async -> SyncEngine? {
        let waiters = state.withLock { state in
            state.stopping = true
            defer { state.stopWaiters = [:] }
            return Array(state.stopWaiters.values)
        }
        waiters.forEach { $0.resume() }
        await withCheckedContinuation { continuation in
            let idle = state.withLock { state -> Bool in
                if state.inFlight == 0 { return true }
                state.idle.append(continuation)
                return false
            }
            if idle { continuation.resume() }
        }
        return state.withLock { state in
            defer { state.engine = nil }
            return state.engine
        }
    }

    /// Takes `engine` as the open one again.
    func resume(_ engine: SyncEngine) {
        state.withLock { state in
            state.engine = engine
            state.stopping = false
            state.cancelledWaiters = []
        }
    }

    /// True while no engine is open.
    var isSuspended: Bool { state.withLock { $0.engine == nil } }
}
