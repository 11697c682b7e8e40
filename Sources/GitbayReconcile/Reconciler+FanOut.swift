import GitbayAPI
import GitbayState
import GitbaySupport

extension Reconciler {
    /// Reconciles the accounts, every instance at once, at most `options.bound(for:)` of one
    /// instance and `concurrency` in all at a time (`PassPool`), the token of each of
    /// `renewing` renewed after its pass; the results in the order they ended.
    func reconcileConcurrently(
        _ accounts: [(AccountRecord, Desire)], facts: RunFacts, tokens apiTokens: [Int64: Secret],
        renewing: (accounts: Set<Int64>, marker: String)?, progress: Options.Listener?
    ) async -> [Reconciled] {
        let passStore = PassStore(store: store, options: options, logger: logger, tokens: tokens)
        return await PassPool(accounts, facts: facts, tokens: apiTokens, store: passStore, renewing: renewing, progress: progress).run()
    }
}
