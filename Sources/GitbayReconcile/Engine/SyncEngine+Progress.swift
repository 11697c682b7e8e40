import GitbayState
import GitbaySupport

extension SyncEngine {
    /// What a run tells as it goes, for a caller that shows each account as it is done.
    package enum RunProgress: Sendable, Equatable {
        /// The run read every account, in sign-in order: told once, before anything else, so
        /// that a caller need not read them again to lay out what it shows.
        case read([AccountRecord])
        /// The account's pass started: its first request is on its way.
        case started(AccountRecord)
        /// The account is done for this run, its entry as `run` returns it. The verdicts of
        /// steady accounts are recorded together as the round ends: one that could not be
        /// recorded is a failure in what `run` returns. An account reconciled again in the same
        /// run (its server proven to go by another name too) is told again.
        case finished(RunEntry)
    }

    /// The reconciler of a run that tells `progress` as each account is done, renews the
    /// tokens `renewing` names, and finishes the removals of `removals`.
    func reconciler(
        telling progress: (@Sendable (RunProgress) -> Void)?, removals: RunRemovals, renewing: (accounts: Set<Int64>, marker: String)?
    ) -> Reconciler {
        var options = options
        (options.removals, options.renewing) = (removals, renewing)
        if let progress {
            options.progress = { event in
                switch event {
                case .read(let accounts): progress(.read(accounts))
                case .started(let account): progress(.started(account))
                case .finished(let outcome): progress(.finished(removals.entry(outcome)))
                }
            }
        }
        return Reconciler(store: store, options: options, logger: logger)
    }

    /// The accounts whose API token a run renews now, wherever the token is kept, and the
    /// install marker (nil: none): which are due is decided without the tokens, and the
    /// keyring is read once, by the run.
    func renewalDue() async throws -> (accounts: Set<Int64>, marker: String)? {
        try await TokenRenewer(store: store, options: options, logger: logger).dueAccounts()
    }
}
