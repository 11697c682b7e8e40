import GitbaySupport

/// When to send a failed request again: a pure schedule of capped exponential backoff with
/// jitter that honours the server's requested wait, for errors that can succeed on a retry.
package struct RetryPolicy: Sendable, Equatable {
    /// How the backoff is spread so that many clients do not retry in step.
    package enum Jitter: Sendable, Equatable {
        /// Anywhere between zero and the backoff.
        case full
        /// At least half the backoff, up to all of it.
        case equal
        /// Exactly the backoff (for tests).
        case none
    }

    /// Attempts in all, the first included; 1 never retries.
    package var maxAttempts: Int
    /// The backoff before the first retry; it doubles for each later one.
    package var baseDelay: Duration
    /// The longest backoff.
    package var maxDelay: Duration
    /// The longest server-requested wait honoured; a longer one is not waited for in this run.
    package var maxRetryAfter: Duration
    package var jitter: Jitter

    package init(
        maxAttempts: Int = 3,
        baseDelay: Duration = .milliseconds(500),
        maxDelay: Duration = .seconds(8),
        maxRetryAfter: Duration = .seconds(60),
        jitter: Jitter = .equal
    ) {
        precondition(maxAttempts >= 1, "maxAttempts counts the first attempt")
        precondition(baseDelay >= .zero && maxDelay >= .zero && maxRetryAfter >= .zero, "delays must not be negative")
        self.maxAttempts = maxAttempts
        self.baseDelay = baseDelay
        self.maxDelay = maxDelay
        self.maxRetryAfter = maxRetryAfter
        self.jitter = jitter
    }

    /// Never retries.
    package static let never = RetryPolicy(maxAttempts: 1)

    /// The wait before the next attempt, or nil to give up.
    ///
    /// - Parameters:
    ///   - attempt: how many attempts have been made, 1 after the first.
    ///   - error: why the last one failed.
    ///   - unitRandom: a number in `0..<1` that places the jitter (injectable for tests).
    package func delay(afterAttempt attempt: Int, failedWith error: GitbayError, unitRandom: Double) -> Duration? {
        guard attempt < maxAttempts, error.isRetryable else { return nil }
        if let requested = error.retryAfter {
            // Retrying before the requested time only spends the limit again.
            return requested <= maxRetryAfter ? requested : nil
        }
        return backoff(afterAttempt: attempt, unitRandom: unitRandom)
    }

    /// The jittered exponential backoff after `attempt` attempts: `baseDelay * 2^(attempt-1)`,
    /// capped at `maxDelay`, then spread by `jitter`.
    package func backoff(afterAttempt attempt: Int, unitRandom: Double) -> Duration {
        let random = min(max(unitRandom, 0), 1)
        let exponent = min(max(attempt - 1, 0), 30)
        let uncapped = baseDelay.inSeconds * Double(1 << exponent)
        let ceiling = min(uncapped, maxDelay.inSeconds)
        let seconds =
            switch jitter {
            case .full: ceiling * random
            case .equal: ceiling / 2 + ceiling / 2 * random
            case .none: ceiling
            }
        return .milliseconds(Int64((seconds * 1000).rounded()))
    }
}
