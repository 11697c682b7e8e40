import Foundation

/// Blocking work for async tests (starting and waiting on child processes, polling with
/// sleeps), run on a thread of its own: a test that blocked a thread of the cooperative pool
/// (two threads on a two-core machine) would stall every other test of the run, and the
/// tests that count deadlines would fail for it.
package enum Blocking {
    /// Runs `work` on a new thread and returns what it returns.
    package static func run<Value: Sendable>(_ work: @escaping @Sendable () throws -> Value) async throws -> Value {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try work() }) }.start()
        }
    }
}
