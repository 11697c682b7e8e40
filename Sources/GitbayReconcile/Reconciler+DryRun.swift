import GitbayAPI
import GitbayState
import GitbaySupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What a run would do for one account, from the same plan a run makes on its first list.
package struct AccountPlan: Sendable, Equatable {
    /// The account's id in the state database.
    package let accountID: Int64
    /// Its name, `user@host[:port]`.
    package let account: String
    /// What the account should have; nil when the run would leave it alone (`skipReason`).
    package let desire: Desire?
    /// The adds, removes, adoptions and forgotten records, in the order a run makes them.
    package var actions: [PlannedAction] = []
    /// Why the run would leave it alone.
    package var skipReason: RunSchedule.SkipReason?
    /// The account's instance, for the words a skip reason needs.
    package var instance: InstanceURL
    /// Where its server serves SSH, as `login --ssh` was given it.
    package var sshDestination: String?
    /// Why its list could not be read: the run would fail the same way.
    package var failure: AccountFailure?
    /// It is being signed out: once its rows are gone, the run would finish its removal.
    package var finishesRemoval: Bool
}

extension Reconciler {
    /// What `reconcile()` would do, account by account, without doing it: the accounts a run
    /// would take (backoffs and other processes' leases as `options` and the store say), each
    /// listed with the tag a run would send, and planned as a run's first pass plans. Only
    /// lists are sent; nothing is written, to a server or to the store.
    package func plans(only: Set<Int64>? = nil) async throws -> [AccountPlan] {
        let facts = try await store.runFacts()
        let (entries, apiTokens) = await withTokens(entries(facts, only: only), facts)
        let pending = entries.compactMap { entry -> (AccountRecord, Desire)? in
            if case .reconcile(let account, let desire) = entry { (account, desire) } else { nil }
        }
        let options = options
        let planned = await RunQueue.perform(
            pending.map { ($0.0.instance, $0) }, overall: options.concurrency, perInstance: options.bound(for:),
            mayStartMore: options.mayStartMore
        ) { account, desire in await plan(account, desire, facts: facts, token: apiTokens[account.id]) }
        let skipped = entries.compactMap { entry -> AccountPlan? in
            guard case .skip(let account, _, let reason) = entry else { return nil }
            return AccountPlan(
                accountID: account.id, account: account.name, desire: nil, skipReason: reason, instance: account.instance,
                sshDestination: account.sshDestination, finishesRemoval: false)
        }
        let order = Dictionary(facts.accounts.enumerated().map { ($1.id, $0) }, uniquingKeysWith: { first, _ in first })
        return (skipped + planned).sorted { (order[$0.accountID] ?? 0) < (order[$1.accountID] ?? 0) }
    }

    /// One account's plan, from a list sent as its run would send it.
    private func plan(_ account: AccountRecord, _ desire: Desire, facts: RunFacts, token: Secret?) async -> AccountPlan {
        let decision = AccountDecision(desire: desire, account: account, device: facts.device)
        let records = facts.registrations[account.id] ?? []
        var plan = AccountPlan(
            accountID: account.id, account: account.name, desire: desire, instance: account.instance,
            sshDestination: account.sshDestination, finishesRemoval: account.state == .removing)
        do {
            let client = try GitbayClient.forAccount(account, token: token, configuration: options.client, logger: logger)
            let tag = decision.tagToSend(remembered: facts.statuses[account.id] ?? AccountStatusRecord(), records: records)
            plan.actions = decision.plan(records: records, answer: try await client.listDevices(ifNoneMatch: tag)).actions
        } catch {
            plan.failure = AccountFailure(error)
            plan.finishesRemoval = false
        }
        return plan
    }
}
