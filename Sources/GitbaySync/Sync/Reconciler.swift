import FoundationEssentials

/// Reconciles every account: decides each account's desire (`RunSchedule`) and runs the
/// accounts concurrently (bounded), each through its own client.
public struct Reconciler: Sendable {
    public struct Options: Sendable {
        /// How many accounts are reconciled at once.
        public var concurrency: Int
        /// Skip accounts whose next retry is still ahead (the timer honours backoff; a run a
        /// person asked for does not).
        public var honourBackoff: Bool
        /// The longest wait before retrying a failed account.
        public var backoffCeiling: Duration
        public var client: ClientConfiguration
        public var now: @Sendable () -> Date
        /// Asked before each further account starts; false (a stop was requested)
        /// leaves the rest for the next run.
        public var mayStartMore: @Sendable () -> Bool

        public init(
            concurrency: Int = 8, honourBackoff: Bool = false, backoffCeiling: Duration = .seconds(3600),
            client: ClientConfiguration = .init(), now: @escaping @Sendable () -> Date = { Date() },
            mayStartMore: @escaping @Sendable () -> Bool = { true }
        ) {
            self.concurrency = concurrency
            self.honourBackoff = honourBackoff
            self.backoffCeiling = backoffCeiling
            self.client = client
            self.now = now
            self.mayStartMore = mayStartMore
        }
    }

    let store: StateStore
    let options: Options
    let logger: Logger

    public init(store: StateStore, options: Options, logger: Logger) {
        self.store = store
        self.options = options
        self.logger = logger
    }

    /// One reconcile of every account (or of `only` these), in sign-in order of the results.
    /// Who holds the token on an instance is decided from every account, whichever run.
    public func reconcile(only: Set<Int64>? = nil) async throws -> [AccountOutcome] {
        let device = try await store.device()
        let current = device.token.map(TokenIdentity.init(of:))
        let accounts = try await store.accounts()
        let preferred = try await store.instances().compactMapValues(\.preferredAccountID)
        var statuses: [Int64: AccountStatusRecord] = [:]
        for account in accounts { statuses[account.id] = try await store.status(ofAccount: account.id) }
        let entries = RunSchedule.entries(
            accounts: accounts, statuses: statuses, preferred: preferred, hasDeviceToken: device.token != nil,
            honourBackoff: options.honourBackoff, now: options.now()
        ).filter { only?.contains($0.account.id) ?? true }

        var outcomes: [AccountOutcome] = []
        var pending: [(AccountRecord, Desire)] = []
        for entry in entries {
            switch entry {
            case .skip(let account, let status):
                outcomes.append(AccountOutcome(account: account.name, action: .skipped, condition: status.condition, error: status.lastError))
            case .reconcile(let account, let desire):
                pending.append((account, desire))
            }
        }
        await withTaskGroup(of: AccountOutcome.self) { group in
            var running = 0
            let width = max(1, options.concurrency)
            func startWhatFits() {
                while running < width, !pending.isEmpty, options.mayStartMore() {
                    let (account, desire) = pending.removeFirst()
                    running += 1
                    group.addTask { await reconcileOne(account, desire, device: device, current: current) }
                }
            }
            startWhatFits()
            for await outcome in group {
                running -= 1
                outcomes.append(outcome)
                startWhatFits()
            }
        }
        let order = Dictionary(uniqueKeysWithValues: accounts.enumerated().map { ($1.name, $0) })
        return outcomes.sorted { (order[$0.account] ?? 0) < (order[$1.account] ?? 0) }
    }

    private func reconcileOne(
        _ account: AccountRecord, _ desire: Desire, device: DeviceRecord, current: TokenIdentity?
    ) async -> AccountOutcome {
        let client: GitbayClient
        do {
            client = try await GitbayClient.forAccount(account, in: store, configuration: options.client, logger: logger)
        } catch {
            let (condition, _) = FailurePolicy.classify(error, failures: 1)
            return AccountOutcome(account: account.name, action: .failed, condition: condition, error: String(describing: error))
        }
        let reconciler = AccountReconciler(
            store: store, account: account, device: device, current: current, client: client,
            logger: logger.with(["account.name": account.name]), now: options.now, backoffCeiling: options.backoffCeiling
        )
        return await reconciler.reconcile(desire)
    }
}
