#if canImport(Darwin)
import os
#else
import Synchronization
#endif

/// A value that many threads share, read and changed only while a lock is held.
///
/// `Synchronization.Mutex` needs macOS 15 while the package supports macOS 14, so Darwin uses
/// `OSAllocatedUnfairLock` (macOS 13) and Linux uses `Mutex`; both are `Sendable` on their own.
final class Guarded<Value: Sendable>: Sendable {
    #if canImport(Darwin)
    private let lock: OSAllocatedUnfairLock<Value>
    #else
    private let lock: Mutex<Value>
    #endif

    init(_ value: Value) {
        #if canImport(Darwin)
        lock = OSAllocatedUnfairLock(initialState: value)
        #else
        lock = Mutex(value)
        #endif
    }

    /// Runs `body` with the value locked. Keep `body` short and free of I/O.
    func withLock<Result: Sendable>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        #if canImport(Darwin)
        try lock.withLockUnchecked(body)
        #else
        try lock.withLock { value in try body(&value) }
        #endif
    }
}
