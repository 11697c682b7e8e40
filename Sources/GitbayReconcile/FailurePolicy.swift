import FoundationEssentials
import GitbayAPI
import GitbayState
import GitbaySupport

/// How a failed reconcile is recorded: the account's condition and when to try again.
package enum FailurePolicy {
    /// The longest wait after ordinary failures, unless a run is given another.
    package static let defaultCeiling: Duration = .seconds(3600)

    /// After an ordinary failure: one minute, doubling per consecutive failure, at most `ceiling`.
    static func backoff(failures: Int, ceiling: Duration = defaultCeiling) -> Duration {
        let exponent = min(max(failures - 1, 0), 20)
        let seconds = min(60 * Double(1 << exponent), Double(ceiling.components.seconds))
        return .seconds(seconds)
    }

    /// How long to leave a push-disabled or denied account alone.
    static let rareRetry: Duration = .seconds(6 * 3600)

    /// The condition and the wait before the next attempt (nil: not until the user acts).
    static func classify(_ error: Error, failures: Int, ceiling: Duration = defaultCeiling) -> (AccountCondition, Duration?) {
        guard let error = error as? GitbayError else { return (.error, backoff(failures: failures, ceiling: ceiling)) }
        switch error.kind {
        case .authFailed:
            return (.authFailed, nil)
        case .readOnlyToken, .denied:
            return (.denied, min(rareRetry, max(ceiling, .seconds(60))))
        case .pushDisabled:
            return (.pushDisabled, min(rareRetry, max(ceiling, .seconds(60))))
        case .rateLimited(let wait), .writeLimited(let wait):
            return (.error, wait ?? backoff(failures: failures, ceiling: ceiling))
        default:
            return (.error, backoff(failures: failures, ceiling: ceiling))
        }
    }

    /// Why the account waits after `error`: nil when it does not wait for time, but for the
    /// user (a refused token waits for a new sign-in).
    static func retryReason(_ error: Error) -> RetryReason? {
        guard let error = error as? GitbayError else { return .backoff }
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
