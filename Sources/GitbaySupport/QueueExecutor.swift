import Dispatch

/// A serial executor that runs an actor's jobs on its own dispatch queue, so an actor doing
/// blocking work (SQLite) never holds a thread of the cooperative pool.
package final class QueueExecutor: SerialExecutor {
    private let queue: DispatchQueue

    package init(label: String) {
        self.queue = DispatchQueue(label: label)
    }

    package func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedSerialExecutor()
        queue.async { job.runSynchronously(on: executor) }
    }

    package func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        UnownedSerialExecutor(ordinary: self)
    }

    /// Runs blocking `body` on the queue and resumes the caller with its result.
    package func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            queue.async { continuation.resume(with: Result { try body() }) }
        }
    }
}
