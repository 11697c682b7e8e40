import FoundationEssentials
import GitbayAPI
import GitbayState
import GitbaySupport

/// Reconciles every account: decides each account's desire (`RunSchedule`) and runs the
/// accounts concurrently, every instance at once and a few accounts of each at a time, each
/// through its own client.
package struct Reconciler: Sendable {
    let store: StateStore
    let options: Options
    let logger: Logger

    package init(store: StateStore, options: Options, logger: Logger) {
        self.store = store
        self.options = options
        self.logger = logger
    }

    /// One reconcile of every account (or of `only` these), in sign-in order of the results.
    /// Who holds the token on an instance is decided from every account, whichever run.
    /// Everything is read before the first request, in one query a table. Accounts another
    /// live process is reconciling are left to it; no lock is held while waiting on a server,
    /// only a lease row per account, taken before its first write. The verdicts of accounts
    /// where nothing changed are recorded together at the end, in one transaction.
    package func reconcile(only: Set<Int64>? = nil) async throws -> [AccountOutcome] {
        let facts = try await store.runFacts()
        let now = options.now()
        let scheduled = RunSchedule.entries(
            accounts: facts.accounts, statuses: facts.statuses, preferred: facts.preferred, hasDeviceToken: facts.device.token != nil,
            honourBackoff: options.honourBackoff, now: now
        ).filter { only?.contains($0.account.id) ?? true }
        let holder = options.leaseHolder
        let heldElsewhere = facts.leases.filter { _, lease in
            (lease.holderPID != holder.pid || lease.holderID != holder.id) && lease.isLive(at: now)
        }
        let entries = RunSchedule.leaving(scheduled, heldElsewhere: heldElsewhere, statuses: facts.statuses)
        let pending = entries.compactMap { entry -> (AccountRecord, Desire)? in
            if case .reconcile(let account, let desire) = entry { (account, desire) } else { nil }
        }
        var reconciled = await reconcileConcurrently(pending, facts: facts)
        await recordSteadyVerdicts(&reconciled, read: facts)
        let outcomes = entries.compactMap(\.skippedOutcome) + reconciled.map(\.outcome)
        let order = Dictionary(uniqueKeysWithValues: facts.accounts.enumerated().map { ($1.name, $0) })
        // Each outcome's place is looked up once, not at every comparison.
        return outcomes.map { (place: order[$0.account] ?? 0, outcome: $0) }.sorted { $0.place < $1.place }.map(\.outcome)
    }

    /// One account's outcome, and the times still to record when nothing else changed.
    struct Reconciled: Sendable {
        var outcome: AccountOutcome
        var steady: Steady?
    }

    /// The verdict of a pass where nothing changed, and the desire it was planned for. A class,
    /// so that the async frames that carry a `Reconciled` (one task's stack per account in
    /// flight) hold a reference rather than the records.
    final class Steady: Sendable {
        let verdict: SteadyVerdict
        let snapshot: DesireSnapshot

        init(verdict: SteadyVerdict, snapshot: DesireSnapshot) {
            self.verdict = verdict
            self.snapshot = snapshot
        }
    }

    /// Reconciles the accounts, every instance at once, at most `options.bound(for:)` of one
    /// instance and `concurrency` in all at a time.
    private func reconcileConcurrently(_ accounts: [(AccountRecord, Desire)], facts: RunFacts) async -> [Reconciled] {
        let options = options
        return await RunQueue.perform(
            accounts.map { ($0.0.instance, $0) }, overall: options.concurrency, perInstance: options.bound(for:),
            mayStartMore: options.mayStartMore
        ) { account, desire in await reconcileInPasses(account, desire, facts: facts) }
    }

    /// Records the times of every account where nothing changed, in one transaction, for each
    /// only while what it should have is still what its pass planned for.
    private func recordSteadyVerdicts(_ reconciled: inout [Reconciled], read facts: RunFacts) async {
        let steady = reconciled.compactMap(\.steady)
        guard !steady.isEmpty else { return }
        let planned = Dictionary(steady.map { ($0.verdict.accountID, $0.snapshot) }, uniquingKeysWith: { first, _ in first })
        do {
            try await store.saveSteadyVerdicts(steady.map(\.verdict), read: facts) { facts in
                let now = DesireSnapshot.all(facts)
                return Set(planned.filter { id, snapshot in now[id] == snapshot }.keys)
            }
        } catch {
            for index in reconciled.indices where reconciled[index].steady != nil {
                reconciled[index].outcome.action = .failed
                reconciled[index].outcome.error = String(describing: error)
            }
        }
    }

    /// How many times an account is planned again in one run when what it should have keeps
    /// changing under the run.
    static let passes = 3

    /// What the run read of an account before its first request: its first pass plans from it.
    struct AccountStart {
        let status: AccountStatusRecord
        let records: [RegistrationRecord]
        let apiToken: Secret?
    }

    /// Reconciles one account, planning again (with the device and desire read afresh) when a
    /// change made during the pass supersedes it.
    private func reconcileInPasses(_ account: AccountRecord, _ desire: Desire, facts: RunFacts) async -> Reconciled {
        var (account, desire, device) = (account, desire, facts.device)
        var start = Optional(
            AccountStart(
                status: facts.statuses[account.id] ?? AccountStatusRecord(), records: facts.registrations[account.id] ?? [],
                apiToken: facts.apiTokens[account.id]
            ))
        var spent = (requests: 0, writes: 0)
        for _ in 1...Self.passes {
            let snapshot = DesireSnapshot(desire: desire, generation: device.generation, label: device.label)
            let pass = await reconcileOne(account, desire, device: device, snapshot: snapshot, start: start)
            start = nil
            var result: Reconciled
            switch pass {
            case .done(let outcome): result = Reconciled(outcome: outcome)
            case .steady(let outcome, let verdict): result = Reconciled(outcome: outcome, steady: Steady(verdict: verdict, snapshot: snapshot))
            case .superseded(let requests, let writes):
                spent = (spent.requests + requests, spent.writes + writes)
                logger.info("account.superseded", ["account.name": account.name])
                switch await plannedAgain(account, spent: spent) {
                case .success(let next): (account, desire, device) = next
                case .failure(let ended): return Reconciled(outcome: ended.outcome)
                }
                continue
            }
            result.outcome.requests += spent.requests
            result.outcome.writes += spent.writes
            return result
        }
        return Reconciled(
            outcome: AccountOutcome(
                account: account.name, action: .skipped, condition: .pending, requests: spent.requests, writes: spent.writes,
                reason: "what it should have kept changing during the run; the next `gitbay-sync run` brings it in line"
            ))
    }

    /// How a pass that is planned again ends without one: the account's outcome.
    struct Ended: Error {
        let outcome: AccountOutcome
    }

    /// The account, its desire and the device read afresh for another pass.
    private func plannedAgain(
        _ account: AccountRecord, spent: (requests: Int, writes: Int)
    ) async -> Result<(AccountRecord, Desire, DeviceRecord), Ended> {
        do {
            guard let fresh = try await store.account(id: account.id), let snapshot = try await store.desireSnapshot(ofAccount: account.id),
                let next = snapshot.desire
            else {
                return .failure(
                    Ended(
                        outcome: AccountOutcome(
                            account: account.name, action: .skipped, condition: .pending, requests: spent.requests, writes: spent.writes,
                            reason: "signed out, or its token refused, during the run"
                        )))
            }
            return .success((fresh, next, try await store.device()))
        } catch {
            return .failure(
                Ended(
                    outcome: AccountOutcome(
                        account: account.name, action: .failed, condition: .error, requests: spent.requests, writes: spent.writes,
                        error: String(describing: error))))
        }
    }

    private func reconcileOne(
        _ account: AccountRecord, _ desire: Desire, device: DeviceRecord, snapshot: DesireSnapshot, start: AccountStart?
    ) async -> AccountReconciler.Pass {
        let client: GitbayClient
        do {
            client =
                if let start {
                    try GitbayClient.forAccount(account, token: start.apiToken, configuration: options.client, logger: logger)
                } else {
                    try await GitbayClient.forAccount(account, in: store, configuration: options.client, logger: logger)
                }
        } catch {
            let (condition, _) = FailurePolicy.classify(error, failures: 1)
            return .done(AccountOutcome(account: account.name, action: .failed, condition: condition, error: String(describing: error)))
        }
        let reconciler = AccountReconciler(
            store: store, account: account, device: device, decision: AccountDecision(desire: desire, account: account, device: device),
            client: client, logger: logger.with(["account.name": account.name]), now: options.now,
            backoffCeiling: options.backoffCeiling, snapshot: snapshot, start: start.map { ($0.status, $0.records) },
            lease: AccountLease(store: store, accountID: account.id, holder: options.leaseHolder, now: options.now)
        )
        return await reconciler.reconcile()
    }
}
