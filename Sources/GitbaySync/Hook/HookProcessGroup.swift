import Dispatch
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The running pre-remove hook, the process group it leads and everything else it started
/// (`HookDescendants`), watched and stopped from any thread: the removal's task, or a signal's
/// cleanup while the process ends.
final class HookProcessGroup: Sendable {
    private struct State {
        /// The hook's pid, which is also its process group's id.
        var leader: pid_t?
        /// The process to reap: on Linux the keeper the hook runs below (`ChildSpawn.spawnKept`),
        /// which ends as the hook did once nothing the hook started is left; else the hook.
        var waited: pid_t?
        /// The leader's wait status once it has been reaped.
        var status: Int32?
        var stopRequested = false
        var descendants: HookDescendants
        /// Whether this run holds `ChildSubreaper` (from the start to the end of the stop).
        var holdsSubreaper = false
    }

    private let state: Mutex<State>

    /// The variable and value that mark every process of this run: put it in the hook's
    /// environment.
    let marker: (name: String, value: String)

    init() {
        let descendants = HookDescendants()
        marker = (HookDescendants.variable, descendants.value)
        state = Mutex(State(descendants: descendants))
    }

    /// How long the last SIGKILL rounds may take: a process in uninterruptible sleep dies when
    /// it wakes, and nothing is worth waiting longer for.
    static let killBound = Duration.seconds(5)

    /// Starts the leader with `spawn` unless a stop came first (then returns false). The lock
    /// is held meanwhile, so a stop from another thread never misses a leader being started.
    /// This process is the child subreaper from before the spawn, so that no orphan of the hook
    /// slips out to init should the keeper be gone.
    func start(_ spawn: () throws -> (waited: pid_t, leader: pid_t)) throws -> Bool {
        try state.withLock { state in
            guard !state.stopRequested else { return false }
            ChildSubreaper.acquire()
            state.holdsSubreaper = true
            do {
                (state.waited, state.leader) = try spawn()
            } catch {
                ChildSubreaper.release()
                state.holdsSubreaper = false
                throw error
            }
            return true
        }
    }

    /// True once anyone asked the group to stop.
    var stopRequested: Bool { state.withLock { $0.stopRequested } }

    /// The leader's wait status once it has exited (it is reaped then, or its keeper is); nil
    /// while it runs.
    func exitStatus() -> Int32? {
        state.withLock { state in
            if let status = state.status { return status }
            guard let waited = state.waited else { return nil }
            var status: Int32 = 0
            let result = waitpid(waited, &status, WNOHANG)
            if result == waited {
                state.status = status
            } else if result < 0 && errno == ECHILD {
                // Reaped by someone else: all that is known is that it is gone, so it counts
                // as killed, never as a success.
                state.status = SIGKILL
            }
            return state.status
        }
    }

    /// Looks for what the hook started since the last look, so that a process which leaves its
    /// tree later (without the marker) is still known.
    func track() {
        state.withLock { state in
            _ = state.descendants.sweep(leader: state.status == nil ? state.waited : nil, signal: nil)
        }
    }

    /// Stops everything and reaps the leader: SIGTERM to the group and to every other process
    /// of the run; then, once the leader has exited, after `grace`, or as soon as `hurry()` is
    /// true, SIGKILL to whatever is left, until nothing is. Blocks the calling thread for about
    /// `grace` at most, and `killBound` more in the worst case. Returns the leader's wait
    /// status (nil when it never started).
    @discardableResult
    func stop(grace: Duration, hurry: @Sendable () -> Bool = { false }) -> Int32? {
        let leader = state.withLock { state -> pid_t? in
            state.stopRequested = true
            return state.leader
        }
        guard let leader else { return nil }
        return end(leader, grace: grace, hurry: hurry)
    }

    /// After the leader exited by itself: whatever it left running is stopped the same way
    /// (the leader having exited, SIGKILL follows SIGTERM at once).
    func endLeftovers() async {
        guard let leader = state.withLock({ $0.leader }) else { return }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            DispatchQueue.global().async {
                _ = self.end(leader, grace: .zero, hurry: { true })
                continuation.resume()
            }
        }
    }

    private func end(_ leader: pid_t, grace: Duration, hurry: @Sendable () -> Bool) -> Int32 {
        _ = signalAll(leader, SIGTERM)
        let deadline = ContinuousClock.now + grace
        var rounds = 0
        while exitStatus() == nil && ContinuousClock.now < deadline && !hurry() {
            usleep(20_000)
            rounds += 1
            // A hook may start more while it cleans up.
            if rounds % 5 == 0 { track() }
        }
        // The hook's children may outlive it (`sleep 300 &`, `setsid …`, anything ignoring
        // SIGTERM): nothing it started survives the stop. A process may fork while it is being
        // killed, so this goes round until none is left.
        let killDeadline = ContinuousClock.now + Self.killBound
        while !signalAll(leader, SIGKILL) && ContinuousClock.now < killDeadline {
            usleep(5_000)
        }
        let status: Int32
        var keeperKilled = false
        while true {
            if let exited = exitStatus() {
                status = exited
                break
            }
            // A keeper held up by a process that does not die (uninterruptible sleep) goes too:
            // what it held is reparented here, and swept below.
            if !keeperKilled && ContinuousClock.now >= killDeadline {
                keeperKilled = true
                state.withLock { state in
                    if let keeper = state.waited, keeper != state.leader, state.status == nil { kill(keeper, SIGKILL) }
                }
            }
            usleep(5_000)
        }
        // Reparented while the last signals went out, then reaped: nothing is left to come here.
        _ = state.withLock { $0.descendants.sweep(leader: nil, signal: SIGKILL) }
        releaseSubreaper()
        return status
    }

    /// Sends `signal` to the group and to every known process of the run; true when the leader
    /// is reaped and nothing else of the run is left.
    private func signalAll(_ leader: pid_t, _ signal: Int32) -> Bool {
        // The tree is walked before anything is signalled, while its processes still run: one
        // that dies reparented here is a zombie whose environment can no longer be read.
        let cleared = state.withLock { state in
            state.descendants.sweep(leader: state.status == nil ? state.waited : nil, signal: nil)
        }
        // The group first, all of it at once, as a terminal would: a hook waiting for its
        // child gets the signal together with it, not after the child ended its wait. The
        // group's id is not reused while any process is in the group, so this reaches the
        // hook's group or no one.
        kill(-leader, signal)
        state.withLock { $0.descendants.signal(signal) }
        return exitStatus() != nil && cleared
    }

    private func releaseSubreaper() {
        let held = state.withLock { state -> Bool in
            defer { state.holdsSubreaper = false }
            return state.holdsSubreaper
        }
        if held { ChildSubreaper.release() }
    }

    /// `stop` on a dispatch thread, so the caller's task holds no cooperative thread while it
    /// waits, and a cancelled caller does not cut the grace short.
    func stopped(grace: Duration, hurry: @escaping @Sendable () -> Bool) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            DispatchQueue.global().async {
                self.stop(grace: grace, hurry: hurry)
                continuation.resume()
            }
        }
    }
}
