import FoundationEssentials
import GitbayAPI
import GitbayState
import GitbaySupport

/// Reconciles every account: decides each account's desire (`RunSchedule`) and runs the
/// accounts concurrently, every instance at once and a few accounts of each at a time, each
/// through its own client.
package struct Reconciler: Sendable {
    package struct Options: Sendable {
        /// How many accounts are in flight at once in all: a bound on the process, not on any
        /// one server.
        package var concurrency: Int
        /// How many accounts of one instance are in flight at once: polite to one server.
        package var perInstance: Int
        /// Skip accounts whose next retry is still ahead: every `run` does, unless `--now`;
        /// a command acting on one account at a person's word (`login`, `pause`, …) does not.
        package var honourBackoff: Bool
        /// The longest wait before retrying a failed account.
        package var backoffCeiling: Duration
        package var client: ClientConfiguration
        package var now: @Sendable () -> Date
        /// Asked before each further account starts; false (a stop was requested)
        /// leaves the rest for the next run.
        package var mayStartMore: @Sendable () -> Bool
        /// Who takes the accounts' leases: one command of this process.
        package var leaseHolder: LeaseHolder

        /// The default of `concurrency`.
        package static let defaultConcurrency = 64
        /// The default of `perInstance`.
        package static let defaultPerInstance = 4

        package init(
            concurrency: Int = defaultConcurrency, perInstance: Int = defaultPerInstance, honourBackoff: Bool = false,
            backoffCeiling: Duration = FailurePolicy.defaultCeiling,
            client: ClientConfiguration = .init(), now: @escaping @Sendable () -> Date = { Date() },
            mayStartMore: @escaping @Sendable () -> Bool = { true }, leaseHolder: LeaseHolder = .new()
        ) {
            self.concurrency = concurrency
            self.perInstance = perInstance
            self.honourBackoff = honourBackoff
            self.backoffCeiling = backoffCeiling
            self.client = client
            self.now = now
            self.mayStartMore = mayStartMore
            self.leaseHolder = leaseHolder
        }
    }

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
    /// Accounts another live process is reconciling are left to it; no lock is held while
    /// waiting on a server, only a lease row per account.
    package func reconcile(only: Set<Int64>? = nil) async throws -> [AccountOutcome] {
        let device = try await store.device()
        let accounts = try await store.accounts()
        var statuses: [Int64: AccountStatusRecord] = [:]
        for account in accounts { statuses[account.id] = try await store.status(ofAccount: account.id) }
        let scheduled = RunSchedule.entries(
            accounts: accounts, statuses: statuses, preferred: try await store.instances().compactMapValues(\.preferredAccountID),
            hasDeviceToken: device.token != nil, honourBackoff: options.honourBackoff, now: options.now()
        ).filter { only?.contains($0.account.id) ?? true }
        let grant = try await store.takeLeases(
            scheduled.compactMap { if case .reconcile(let account, _) = $0 { account.id } else { nil } },
            holder: options.leaseHolder, now: options.now()
        )
        let entries = RunSchedule.leaving(scheduled, heldElsewhere: grant.heldElsewhere, statuses: statuses)
        let pending = entries.compactMap { entry -> (AccountRecord, Desire)? in
            if case .reconcile(let account, let desire) = entry { (account, desire) } else { nil }
        }
        let outcomes = entries.compactMap(\.skippedOutcome) + (await reconcileConcurrently(pending, taken: grant.taken, device: device))
        let order = Dictionary(uniqueKeysWithValues: accounts.enumerated().map { ($1.name, $0) })
        return outcomes.sorted { (order[$0.account] ?? 0) < (order[$1.account] ?? 0) }
    }

    /// Reconciles the accounts, every instance at once, at most `perInstance` of one instance
    /// and `concurrency` in all at a time, giving back each lease this run `taken` as its
    /// account finishes; accounts a stop left unstarted give theirs back too.
    private func reconcileConcurrently(_ accounts: [(AccountRecord, Desire)], taken: Set<Int64>, device: DeviceRecord) async -> [AccountOutcome] {
        var queue = RunQueue(accounts.map { ($0.0.instance, $0) }, overall: options.concurrency, perInstance: options.perInstance)
        var outcomes: [AccountOutcome] = []
        await withTaskGroup(of: (InstanceURL, AccountOutcome).self) { group in
            func startWhatFits() {
                while options.mayStartMore(), let (instance, (account, desire)) = queue.start() {
                    let release = taken.contains(account.id)
                    group.addTask {
                        let outcome = await reconcileInPasses(account, desire, device: device)
                        if release { try? await store.releaseLeases([account.id], holder: options.leaseHolder) }
                        return (instance, outcome)
                    }
                }
            }
            startWhatFits()
            for await (instance, outcome) in group {
                queue.finished(instance)
                outcomes.append(outcome)
                startWhatFits()
            }
        }
        try? await store.releaseLeases(queue.remaining.map(\.0.id).filter(taken.contains), holder: options.leaseHolder)
        return outcomes
    }

    /// How many times an account is planned again in one run when what it should have keeps
    /// changing under the run.
    static let passes = 3

    /// Reconciles one account, planning again (with the device and desire read afresh) when a
    /// change made during the pass supersedes it.
    private func reconcileInPasses(_ account: AccountRecord, _ desire: Desire, device: DeviceRecord) async -> AccountOutcome {
        var (account, desire, device) = (account, desire, device)
        var spent = (requests: 0, writes: 0)
        for _ in 1...Self.passes {
            let snapshot = DesireSnapshot(desire: desire, generation: device.generation, label: device.label)
            switch await reconcileOne(account, desire, device: device, snapshot: snapshot) {
            case .done(var outcome):
                outcome.requests += spent.requests
                outcome.writes += spent.writes
                return outcome
            case .superseded(let requests, let writes):
                spent = (spent.requests + requests, spent.writes + writes)
                logger.info("account.superseded", ["account.name": account.name])
            }
            do {
                guard let fresh = try await store.account(id: account.id), let snapshot = try await store.desireSnapshot(ofAccount: account.id),
                    let next = snapshot.desire
                else {
                    return AccountOutcome(
                        account: account.name, action: .skipped, condition: .pending, requests: spent.requests, writes: spent.writes,
                        reason: "signed out, or its token refused, during the run"
                    )
                }
                (account, desire, device) = (fresh, next, try await store.device())
            } catch {
                return AccountOutcome(
                    account: account.name, action: .failed, condition: .error, requests: spent.requests, writes: spent.writes,
                    error: String(describing: error))
            }
        }
        return AccountOutcome(
            account: account.name, action: .skipped, condition: .pending, requests: spent.requests, writes: spent.writes,
            reason: "what it should have kept changing during the run; the next `gitbay-sync run` brings it in line"
        )
    }

    private func reconcileOne(
        _ account: AccountRecord, _ desire: Desire, device: DeviceRecord, snapshot: DesireSnapshot
    ) async -> AccountReconciler.Pass {
        let client: GitbayClient
        do {
            client = try await GitbayClient.forAccount(account, in: store, configuration: options.client, logger: logger)
        } catch {
            let (condition, _) = FailurePolicy.classify(error, failures: 1)
            return .done(AccountOutcome(account: account.name, action: .failed, condition: condition, error: String(describing: error)))
        }
        let reconciler = AccountReconciler(
            store: store, account: account, device: device, decision: AccountDecision(desire: desire, account: account, device: device),
            client: client, logger: logger.with(["account.name": account.name]), now: options.now,
            backoffCeiling: options.backoffCeiling, snapshot: snapshot
        )
        return await reconciler.reconcile()
    }
}
