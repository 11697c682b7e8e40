import Dispatch
import Synchronization

/// A serial queue for a keyring's blocking calls (libsecret's `_sync` functions, the
/// Keychain's `SecItem` calls), so that none holds a thread of the cooperative pool, and a
/// deadline on each: at `timeout` the call is asked to stop (`cancel`), and a little later the
/// caller resumes with `.timedOut` whether or not the call has returned. A call still stuck
/// then (one the library does not let be cancelled) finishes in the background, and calls
/// queued behind it meet their own deadlines.
final class KeyringQueue: Sendable {
    /// How long after `timeout` the caller resumes anyway.
    static let grace: Duration = .seconds(2)

    private let queue: DispatchQueue

    init(label: String) {
        queue = DispatchQueue(label: label)
    }

    /// Runs `work` on the queue and returns what it returned, or `.timedOut(timeout)` once
    /// `timeout` and the grace have passed. `cancel`, if any, runs (on another thread) at
    /// `timeout`.
    func run<Value: Sendable>(
        timeout: Duration, cancel: (@Sendable () -> Void)? = nil, work: @escaping @Sendable () -> Result<Value, KeyringUnavailable>
    ) async throws(KeyringUnavailable) -> Value {
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<Value, KeyringUnavailable>, Never>) in
            let once = ResumeOnce(continuation)
            queue.async { once.resume(work()) }
            if let cancel { DispatchQueue.global().asyncAfter(deadline: Self.deadline(after: timeout)) { cancel() } }
            DispatchQueue.global().asyncAfter(deadline: Self.deadline(after: timeout + Self.grace)) {
                once.resume(.failure(.timedOut(timeout)))
            }
        }
        return try result.get()
    }

    private static func deadline(after duration: Duration) -> DispatchTime {
        let (seconds, attoseconds) = duration.components
        return .now() + .nanoseconds(Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000))
    }
}

/// A continuation resumed by the first of several callers; the others are ignored.
private final class ResumeOnce<Value: Sendable>: Sendable {
    private let continuation: Mutex<CheckedContinuation<Value, Never>?>

    init(_ continuation: CheckedContinuation<Value, Never>) {
        self.continuation = Mutex(continuation)
    }

    func resume(_ value: Value) {
        let waiting = continuation.withLock { continuation in
            defer { continuation = nil }
            return continuation
        }
        waiting?.resume(returning: value)
    }
}
