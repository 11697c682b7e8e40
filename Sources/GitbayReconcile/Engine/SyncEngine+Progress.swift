import GitbayState
import GitbaySupport

extension SyncEngine {
    /// What a run tells as it goes, for a caller that shows each account as it is done.
    package enum RunProgress: Sendable, Equatable {
        /// The account's pass started: its first request is on its way.
        case started(AccountRecord)
        /// The account is done for this run, its entry as `run` returns it. The verdicts of
        /// steady accounts are recorded together as the round ends: one that could not be
        /// recorded is a failure in what `run` returns. An account reconciled again in the same
        /// run (its server proven to go by another name too) is told again.
        case finished(RunEntry)
    }

    /// The reconciler of a run that tells `progress`, leaving to the run the accounts `held`
    /// (by id), which have more to do once reconciled.
    func reconciler(telling progress: (@Sendable (RunProgress) -> Void)?, holding held: Set<Int64>) -> Reconciler {
        guard let progress else { return reconciler }
        var options = options
        options.progress = { event in
            switch event {
            case .started(let account):
                progress(.started(account))
            case .finished(let outcome):
                if !held.contains(outcome.accountID) { progress(.finished(RunEntry(outcome: outcome))) }
            }
        }
        return Reconciler(store: store, options: options, logger: logger)
    }

    /// The ids of the accounts whose API token a run renews now, wherever the token is kept:
    /// which accounts are due is decided without the tokens, and the keyring is read once, by
    /// the run.
    func renewalDue() async throws -> Set<Int64> {
        guard let due = try await TokenRenewer(store: store, options: options, logger: logger).dueAccounts() else { return [] }
        return Set(due.accounts)
    }
}
