import Dispatch
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The running pre-remove hook and the process group it leads, watched and stopped from any
/// thread: the removal's task, or a signal's cleanup while the process ends.
final class HookProcessGroup: Sendable {
    private struct State {
        /// The hook's pid, which is also its process group's id.
        var leader: pid_t?
        /// The leader's wait status once it has been reaped.
        var status: Int32?
        var stopRequested = false
    }

    private let state = Mutex(State())

    /// Starts the leader with `spawn` unless a stop came first (then returns false). The lock
    /// is held meanwhile, so a stop from another thread never misses a leader being started.
    func start(_ spawn: () throws -> pid_t) throws -> Bool {
        try state.withLock { state in
            guard !state.stopRequested else { return false }
            state.leader = try spawn()
            return true
        }
    }

    /// True once anyone asked the group to stop.
    var stopRequested: Bool { state.withLock { $0.stopRequested } }

    /// The leader's wait status once it has exited (it is reaped then); nil while it runs.
    func exitStatus() -> Int32? {
        state.withLock { state in
            if let status = state.status { return status }
            guard let leader = state.leader else { return nil }
            var status: Int32 = 0
            let result = waitpid(leader, &status, WNOHANG)
            if result == leader {
                state.status = status
            } else if result < 0 && errno == ECHILD {
                // Reaped by someone else: all that is known is that it is gone, so it counts
                // as killed, never as a success.
                state.status = SIGKILL
            }
            return state.status
        }
    }

    /// Stops the whole group and reaps the leader: SIGTERM to every process in the group; then,
    /// once the leader has exited, after `grace`, or as soon as `hurry()` is true, SIGKILL to
    /// whatever is left of the group. Blocks the calling thread for about `grace` at most.
    /// Returns the leader's wait status (nil when it never started).
    @discardableResult
    func stop(grace: Duration, hurry: @Sendable () -> Bool = { false }) -> Int32? {
        let leader = state.withLock { state -> pid_t? in
            state.stopRequested = true
            return state.leader
        }
        guard let leader else { return nil }
        kill(-leader, SIGTERM)
        let deadline = ContinuousClock.now + grace
        while exitStatus() == nil && ContinuousClock.now < deadline && !hurry() {
            usleep(20_000)
        }
        // The hook's children may outlive it (`sleep 300 &`, or anything ignoring SIGTERM):
        // nothing it started survives the stop.
        kill(-leader, SIGKILL)
        while true {
            if let status = exitStatus() { return status }
            usleep(5_000)
        }
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
