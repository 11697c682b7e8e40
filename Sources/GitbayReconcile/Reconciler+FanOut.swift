import GitbayAPI
import GitbayState
import GitbaySupport

extension Reconciler {
    /// Reconciles the accounts, every instance at once, at most `options.bound(for:)` of one
    /// instance and `concurrency` in all at a time (`PassPool`), the token of each of
    /// `renewing` renewed after its pass, and the removal of each of `removals` finished after
    /// its pass (or, for those of `leftAlone`, instead of one); the results in the order they ended.
    func reconcileConcurrently(
        _ accounts: [(AccountRecord, Desire)], facts: RunFacts, tokens apiTokens: [Int64: Secret],
        after: (renewing: (accounts: Set<Int64>, marker: String)?, removals: RunRemovals?), leftAlone: [AccountOutcome],
        progress: Options.Listener?
    ) async -> [Reconciled] {
        let passStore = PassStore(store: store, options: options, logger: logger, tokens: tokens)
        return await PassPool(
            accounts, facts: facts, tokens: apiTokens, store: passStore, renewing: after.renewing, removals: after.removals, leftAlone: leftAlone,
            progress: progress
        ).run()
    }
}
