import Synchronization

/// A value that many threads share, read and changed only while a lock is held: a `Mutex` in a
/// class, so that the listener, its connection threads and the server can hold the same one.
final class Guarded<Value: Sendable>: Sendable {
    private let lock: Mutex<Value>

    init(_ value: Value) {
        lock = Mutex(value)
    }

    /// Runs `body` with the value locked. Keep `body` short and free of I/O.
    func withLock<Result: Sendable>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        try lock.withLock { value in try body(&value) }
    }
}
