import GitbayAPI
import GitbayState
import GitbaySupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension AccountPass {
    /// How many times an account is planned in one run when what it should have keeps changing.
    package static let maximumPasses = 3

    /// A failure: recorded with its condition and wait (and the list tag forgotten), except a
    /// stop on purpose, which is not the account's failure. A list confirming writes that
    /// fails only leaves no tag to remember; stopped, it ends the pass as any stop does (a
    /// verdict saved then could find the account changed, and plan again after the stop).
    mutating func failed(_ failure: AccountFailure) -> Step {
        switch phase {
        case .confirming, .acting(_, _, .confirmed):
            guard !failure.isStop else { break }
            remember(nil, basis: nil)
            return succeeded()
        case .readingAfresh:
            if case .local(.keyring(let reason)) = failure {
                // Its token unknown, not refused: the account was not checked, as when a run's first read fails.
                outcome = AccountOutcome(account, action: .skipped, condition: status.condition)
                outcome.skipReason = .keyringUnavailable(reason)
            } else {
                outcome = AccountOutcome(account, action: .failed, condition: .error)
                outcome.failure = failure
            }
            return end(with: Reconciler.Reconciled(outcome: finalOutcome))
        case .saving:
            outcome.action = .failed
            outcome.failure = failure
            return end(with: Reconciler.Reconciled(outcome: finalOutcome))
        default:
            break
        }
        outcome.action = .failed
        outcome.failure = failure
        guard !failure.isStop else {
            // Stopped on purpose: nothing more is recorded.
            outcome.condition = status.condition
            outcome.stopped = true
            return end(with: Reconciler.Reconciled(outcome: finalOutcome))
        }
        status.failures += 1
        status.unchecked = nil
        let (condition, wait) = FailurePolicy.classify(failure, failures: status.failures, ceiling: settings.backoffCeiling)
        status.condition = condition
        status.lastError = failure.description
        status.nextRetryAt = wait.map { FailurePolicy.nextAttempt(after: startedAt, waiting: $0) }
        status.nextRetryReason = wait == nil ? nil : FailurePolicy.retryReason(failure)
        remember(nil, basis: nil)
        outcome.condition = condition
        outcome.nextRetryAt = status.nextRetryAt
        outcome.nextRetryReason = status.nextRetryReason
        work.leaseNeeded = true
        phase = .saving
        return .save(status, ifStill: snapshot)
    }

    /// A pass that could not start (no client for the account: no API token stored): its
    /// outcome, nothing recorded.
    mutating func notStarted(_ failure: AccountFailure) -> Step {
        let (condition, _) = FailurePolicy.classify(failure, failures: 1)
        outcome.action = .failed
        outcome.condition = condition
        outcome.failure = failure
        return end(with: Reconciler.Reconciled(outcome: finalOutcome))
    }

    /// Plans the next pass from the account as read afresh; the end when it is signed out,
    /// not to be reconciled any more, or kept changing through every pass.
    mutating func planAgain(from fresh: Fresh?) -> Step {
        guard let fresh, let desire = fresh.snapshot.desire else {
            return ended(.skipped, condition: .pending, skipReason: .signedOutDuringRun)
        }
        passes += 1
        guard passes <= Self.maximumPasses else {
            return ended(.skipped, condition: .pending, skipReason: .keptChanging)
        }
        (account, device, snapshot) = (fresh.account, fresh.device, fresh.snapshot)
        decision = AccountDecision(desire: desire, account: fresh.account, device: fresh.device)
        (records, read, status, hadRecords) = (fresh.records, fresh.status, fresh.status, !fresh.records.isEmpty)
        work = Work()
        // A change an earlier pass made stands, unless the next pass says another (`afterActions`).
        outcome = AccountOutcome(fresh.account, action: outcome.action.changed ? outcome.action : .unchanged, condition: .pending)
        return begin(at: now)
    }

    /// Ends with an outcome of its own.
    private mutating func ended(
        _ action: AccountOutcome.Action, condition: AccountCondition, skipReason: RunSchedule.SkipReason? = nil
    ) -> Step {
        outcome = AccountOutcome(account, action: action, condition: condition, skipReason: skipReason)
        return end(with: Reconciler.Reconciled(outcome: finalOutcome))
    }
}
