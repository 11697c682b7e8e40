import GitbaySupport
import Synchronization

/// How a command's attempts are carried out: sent with a completion, retried after the
/// policy's wait, bounded by the client's deadline, cancellable in flight or in a wait.
extension GitbayClient {
    /// Sends `call`, retrying as the policy allows, and returns at once; `completion` gets the
    /// first answer that is not an error, or the failure, once, on a thread of the transport's
    /// choosing. Cancelling the transfer ends it with `.cancelled`, in an attempt or between two.
    func start(_ call: Call, command: [String], completion: @escaping @Sendable (Result<Reply, GitbayError>) -> Void) -> TransportTransfer {
        let attempts = Attempts(request: makeRequest(call), completion: completion)
        send(attempt: 1, of: attempts, command: command)
        return TransportTransfer { [accountName] in
            attempts.cancel(GitbayError(kind: .transport(.cancelled), account: accountName, command: command))
        }
    }

    /// Sends the request's `attempt`; retries after a failure the policy retries.
    private func send(attempt: Int, of attempts: Attempts, command: [String]) {
        guard attempts.begin(attempt) else {
            attempts.finish(.failure(GitbayError(kind: .transport(.cancelled), account: accountName, command: command)))
            return
        }
        let left: Duration?
        do throws(GitbayError) {
            left = try timeLeft(command: command)
        } catch {
            attempts.finish(.failure(error))
            return
        }
        noteAttempt(attempt, of: attempts.request, command: command)
        let transfer = transport.start(attempts.request, limits: limits(within: left)) { [self] result in
            let failure: GitbayError
            do throws(GitbayError) {
                attempts.finish(.success(try classify(result, command: command, within: left)))
                return
            } catch {
                failure = error
            }
            guard !attempts.isCancelled, let delay = delayBeforeRetrying(after: failure, attempt: attempt, command: command) else {
                attempts.finish(.failure(failure))
                return
            }
            attempts.wait(delay, cancelled: GitbayError(kind: .transport(.cancelled), account: accountName, command: command)) {
                self.send(attempt: attempt + 1, of: attempts, command: command)
            }
        }
        attempts.sent(attempt, transfer)
    }

    /// What a command started with a completion gives, awaited; the task's cancellation
    /// cancels it.
    func awaiting<Value: Sendable>(
        _ start: (@escaping @Sendable (Result<Value, GitbayError>) -> Void) -> TransportTransfer
    ) async throws(GitbayError) -> Value {
        try await Self.awaiting(start).get()
    }

    /// What a transfer started with a completion gives, awaited; the task's cancellation
    /// cancels the transfer (which still gives its answer, as cancelled).
    package static func awaiting<Answer: Sendable>(_ start: (@escaping @Sendable (Answer) -> Void) -> TransportTransfer) async -> Answer {
        let relay = CancelRelay()
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Answer, Never>) in
                relay.hold(start { continuation.resume(returning: $0) })
            }
        } onCancel: {
            relay.cancel()
        }
    }

    /// Counts the request and logs it.
    private func noteAttempt(_ attempt: Int, of request: HTTPRequest, command: [String]) {
        countRequest()
        logger.debug(
            "gitbay.request",
            [
                "gitbay.command": command.joined(separator: " "), "http.method": request.method, "request.attempt": String(attempt),
            ])
    }

    /// What is left of the deadline for the next attempt, counting from the client's first
    /// request; nil when there is no deadline. Throws a deadline timeout when nothing is left.
    private func timeLeft(command: [String]) throws(GitbayError) -> Duration? {
        guard let deadline = configuration.deadline else { return nil }
        let now = ContinuousClock.now
        let left = deadline - deadlineStart(now: now).duration(to: now)
        guard left > .zero else {
            throw GitbayError(kind: .transport(.timedOut(.deadline, limit: deadline)), account: accountName, command: command)
        }
        return left
    }

    /// Whether an attempt made after waiting `delay` would start before the deadline.
    private func startsBeforeDeadline(after delay: Duration) -> Bool {
        guard let deadline = configuration.deadline, let start = firstAttemptAt else { return true }
        return start.duration(to: .now) + delay < deadline
    }

    /// How long to wait before trying again after `failure`; nil when it is not to be retried,
    /// or when the retry would start past the deadline. Logs either way.
    private func delayBeforeRetrying(after failure: GitbayError, attempt: Int, command: [String]) -> Duration? {
        let commandText = command.joined(separator: " ")
        let delay = configuration.retry.delay(afterAttempt: attempt, failedWith: failure, unitRandom: configuration.random())
        guard let delay, startsBeforeDeadline(after: delay) else {
            var failedMetadata = metadata(of: failure, command: commandText, attempt: attempt)
            if delay != nil { failedMetadata["retry.past_deadline"] = "true" }
            logger.info("gitbay.request.failed", failedMetadata)
            return nil
        }
        var retryMetadata = metadata(of: failure, command: commandText, attempt: attempt)
        retryMetadata["retry.delay_ms"] = String(delay.roundedUpMilliseconds)
        logger.info("gitbay.request.retrying", retryMetadata)
        return delay
    }

    /// One command's attempts in flight: the request, what is in flight now (an exchange or the
    /// wait before the next), and the completion, called once.
    final class Attempts: Sendable {
        let request: HTTPRequest
        private let completion: @Sendable (Result<Reply, GitbayError>) -> Void
        private let phase = Mutex(Phase.sending(attempt: 0, nil))

        private enum Phase {
            /// The attempt in flight, with its transfer once `transport.start` returned it.
            case sending(attempt: Int, TransportTransfer?)
            /// Waiting before the next attempt.
            case waiting(Task<Void, Never>)
            /// Cancelled while an exchange was in flight: it ends with its own `.cancelled`.
            case cancelled
            case finished
        }

        init(request: HTTPRequest, completion: @escaping @Sendable (Result<Reply, GitbayError>) -> Void) {
            self.request = request
            self.completion = completion
        }

        /// Whether the attempts were cancelled: a failure now is not retried.
        var isCancelled: Bool {
            phase.withLock { phase in
                if case .cancelled = phase { return true }
                return false
            }
        }

        /// Whether `attempt` may be sent: false once the attempts were cancelled or ended.
        func begin(_ attempt: Int) -> Bool {
            phase.withLock { phase in
                switch phase {
                case .sending, .waiting:
                    phase = .sending(attempt: attempt, nil)
                    return true
                case .cancelled, .finished:
                    return false
                }
            }
        }

        /// The transfer of `attempt`, as `transport.start` returned it (perhaps after it ended).
        func sent(_ attempt: Int, _ transfer: TransportTransfer) {
            let cancel = phase.withLock { phase in
                switch phase {
                case .sending(let inFlight, nil) where inFlight == attempt:
                    phase = .sending(attempt: attempt, transfer)
                    return false
                case .cancelled:
                    return true
                default:
                    return false
                }
            }
            if cancel { transfer.cancel() }
        }

        /// Waits `delay`, then calls `next` (which sends the next attempt); a cancellation
        /// during the wait finishes with `cancelled`.
        func wait(_ delay: Duration, cancelled: GitbayError, then next: @escaping @Sendable () -> Void) {
            let stopped = phase.withLock { phase in
                guard case .sending = phase else { return true }
                phase = .waiting(
                    Task {
                        do {
                            try await Task.sleep(for: delay)
                        } catch {
                            return
                        }
                        next()
                    })
                return false
            }
            if stopped { finish(.failure(cancelled)) }
        }

        /// Ends the attempts with `failure` unless they have ended: the exchange in flight is
        /// cancelled (and finishes with its own failure), a wait is stopped now.
        func cancel(_ failure: GitbayError) {
            let (transfer, wait): (TransportTransfer?, Task<Void, Never>?) = phase.withLock { phase in
                switch phase {
                case .sending(_, let transfer):
                    phase = .cancelled
                    return (transfer, nil)
                case .waiting(let task):
                    phase = .finished
                    return (nil, task)
                case .cancelled, .finished:
                    return (nil, nil)
                }
            }
            transfer?.cancel()
            if let wait {
                wait.cancel()
                completion(.failure(failure))
            }
        }

        /// Calls the completion with `result`, the first time only.
        func finish(_ result: Result<Reply, GitbayError>) {
            let first = phase.withLock { phase in
                if case .finished = phase { return false }
                phase = .finished
                return true
            }
            if first { completion(result) }
        }
    }

    /// Cancels a command started with a completion, once `hold` gives its transfer: a
    /// cancellation that came first cancels it as it arrives.
    final class CancelRelay: Sendable {
        private let state = Mutex<(transfer: TransportTransfer?, cancelled: Bool)>((nil, false))

        func hold(_ transfer: TransportTransfer) {
            let cancelled = state.withLock { state in
                state.transfer = transfer
                return state.cancelled
            }
            if cancelled { transfer.cancel() }
        }

        func cancel() {
            let transfer = state.withLock { state in
                state.cancelled = true
                return state.transfer
            }
            transfer?.cancel()
        }
    }
}
