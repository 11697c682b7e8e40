import GitbayState
import GitbaySupport

extension SyncEngine {
    /// What a run tells as it goes, for a caller that shows each account as it is done.
    package enum RunProgress: Sendable, Equatable {
        /// The account's pass started: its first request is on its way.
        case started(account: String)
        /// The account is done for this run, its entry as `run` returns it. The verdicts of
        /// steady accounts are recorded together as the round ends: one that could not be
        /// recorded is a failure in what `run` returns. An account reconciled again in the same
        /// run (its server proven to go by another name too) is told again.
        case finished(RunEntry)
    }

    /// The reconciler of a run that tells `progress`, leaving to the run the accounts `held`
    /// (by name), which have more to do once reconciled.
    func reconciler(telling progress: (@Sendable (RunProgress) -> Void)?, holding held: Set<String>) -> Reconciler {
        guard let progress else { return reconciler }
        var options = options
        options.progress = { event in
            switch event {
            case .started(let account):
                progress(.started(account: account.name))
            case .finished(let outcome):
                if !held.contains(outcome.account) { progress(.finished(RunEntry(outcome: outcome))) }
            }
        }
        return Reconciler(store: store, options: options, logger: logger)
    }

    /// The names of the accounts whose API token a run renews now.
    /// A token the keyring holds counts as if read: only which accounts are due matters here,
    /// and the keyring is read once, by the run.
    func renewalDue() async throws -> Set<String> {
        let accounts = try await store.accounts()
        let unread = Dictionary(accounts.map { ($0.id, Secret("")) }, uniquingKeysWith: { first, _ in first })
        guard let due = try await TokenRenewer(store: store, options: options, logger: logger).due(keyringTokens: unread) else { return [] }
        return Set(accounts.filter { due.tokens[$0.id] != nil }.map(\.name))
    }
}
