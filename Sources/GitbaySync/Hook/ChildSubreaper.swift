internal import CProcess
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// This process as the child subreaper (Linux's `PR_SET_CHILD_SUBREAPER`) while any
/// pre-remove hook runs: what a hook starts and then orphans (a double fork, a `setsid` child
/// once the hook has exited) is reparented here rather than to init, so it stays in reach to be
/// stopped and reaped. The flag is the process's, and removals may run hooks at once, so it is
/// counted: set by the first holder, cleared by the last (unless it was set before). macOS has
/// no such flag: there, holding it does nothing.
enum ChildSubreaper {
    private struct State {
        var holders = 0
        /// Whether the flag was set before the first holder (by whoever started this process).
        var wasSet = false
    }

    private static let state = Mutex(State())

    /// Sets the flag unless a holder already did.
    static func acquire() {
        state.withLock { state in
            if state.holders == 0 {
                state.wasSet = isSet
                if !state.wasSet { set(true) }
            }
            state.holders += 1
        }
    }

    /// Clears the flag when this was the last holder and it was not set before.
    static func release() {
        state.withLock { state in
            precondition(state.holders > 0, "ChildSubreaper released more often than acquired")
            state.holders -= 1
            if state.holders == 0 && !state.wasSet { set(false) }
        }
    }

    #if os(Linux)
    private static var isSet: Bool { cprocess_is_child_subreaper() > 0 }

    private static func set(_ on: Bool) {
        _ = cprocess_set_child_subreaper(on ? 1 : 0)
    }
    #else
    private static var isSet: Bool { false }

    private static func set(_ on: Bool) {}
    #endif
}
