import GitbayAPI
import GitbayState
import GitbaySupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// How a failed reconcile is recorded: the account's condition and when to try again.
package enum FailurePolicy {
    /// The longest wait after ordinary failures, unless a run is given another.
    package static let defaultCeiling: Duration = .seconds(3600)

    /// How long to leave a push-disabled or denied account alone (at most the ceiling).
    static let rareRetry: Duration = .seconds(6 * 3600)

    /// The longest wait any run records: a longer ceiling (a `run --every` period of more
    /// than six hours) is cut to it. A next attempt recorded further ahead of now than this
    /// did not come from a run with the right clock (see `isBeyondAnyWait`).
    package static let longestWait: Duration = max(defaultCeiling, rareRetry)

    /// After an ordinary failure: one minute, doubling per consecutive failure, at most `ceiling`.
    static func backoff(failures: Int, ceiling: Duration = defaultCeiling) -> Duration {
        let exponent = min(max(failures - 1, 0), 20)
        let seconds = min(60 * Double(1 << exponent), Double(bounded(ceiling).components.seconds))
        return .seconds(seconds)
    }

    /// The longest wait a server may ask for and have honoured: the ceiling, or an hour when
    /// the ceiling is shorter (a short `run --every` period), since retrying before the
    /// server's time only spends its limit again.
    static func longestServerWait(ceiling: Duration = defaultCeiling) -> Duration {
        max(bounded(ceiling), defaultCeiling)
    }

    /// The condition and the wait before the next attempt (nil: not until the user acts).
    /// Every wait is at most `longestWait`, whatever number the server sent.
    static func classify(_ failure: AccountFailure, failures: Int, ceiling: Duration = defaultCeiling) -> (AccountCondition, Duration?) {
        // A stored name no gitbay gives stays so until the account is removed: no wait helps.
        if failure == .local(.unusableName) { return (.error, nil) }
        guard let error = failure.server else { return (.error, backoff(failures: failures, ceiling: ceiling)) }
        let rare = min(rareRetry, max(bounded(ceiling), .seconds(60)))
        switch error.kind {
        case .authFailed:
            return (.authFailed, nil)
        case .readOnlyToken, .denied:
            return (.denied, rare)
        case .pushDisabled:
            return (.pushDisabled, rare)
        case .rateLimited(let wait?), .writeLimited(let wait?):
            return (.error, min(max(wait, .zero), longestServerWait(ceiling: ceiling)))
        default:
            return (.error, backoff(failures: failures, ceiling: ceiling))
        }
    }

    /// When the account is tried again after a failure at `startedAt` that waits `wait`: whole
    /// seconds, as the database stores them.
    static func nextAttempt(after startedAt: Date, waiting wait: Duration) -> Date {
        startedAt.addingTimeInterval(Double(min(wait, longestWait).components.seconds))
    }

    /// Whether a next attempt recorded for `next` is further ahead of `now` than any run
    /// sets one: recorded while the clock ran ahead, or from a server's number before waits
    /// were bounded. Such an account is not left waiting: the next run tries it.
    package static func isBeyondAnyWait(_ next: Date, from now: Date) -> Bool {
        next.timeIntervalSince(now) > longestWait.inSeconds
    }

    /// The ceiling as a run applies it: at most `longestWait`.
    private static func bounded(_ ceiling: Duration) -> Duration {
        min(ceiling, longestWait)
    }

    /// Why the account waits after `error`: nil when it does not wait for time, but for the
    /// user (a refused token waits for a new sign-in).
    static func retryReason(_ failure: AccountFailure) -> RetryReason? {
        guard let error = failure.server else { return .backoff }
        switch error.kind {
        case .authFailed: return nil
        case .readOnlyToken, .denied: return .denied
        case .pushDisabled: return .pushDisabled
        case .rateLimited(let wait?): return wait > .zero ? .retryAfter : .backoff
        case .writeLimited(let wait?): return wait > .zero ? .writeLimit : .backoff
        default: return .backoff
        }
    }
}
