import FoundationEssentials

/// Reconciles every account: decides each account's desire, groups accounts that must not
/// race, and runs the groups concurrently (bounded), each account through its own client.
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
        /// Asked before each further group of accounts starts; false (a stop was requested)
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
    public func reconcile(only: Set<Int64>? = nil) async throws -> [AccountOutcome] {
        let device = try await store.device()
        let accounts = try await store.accounts().filter { only?.contains($0.id) ?? true }
        let instances = try await store.instances()
        var statuses: [Int64: AccountStatusRecord] = [:]
        for account in accounts { statuses[account.id] = try await store.status(ofAccount: account.id) }

        var skipped: [AccountOutcome] = []
        var groups: [[Assignment]] = []
        let byInstance = Dictionary(grouping: accounts, by: \.instance)
        for instance in byInstance.keys.sorted() {
            let members = byInstance[instance]!
            var eligible: [AccountRecord] = []
            for account in members {
                let status = statuses[account.id]!
                if account.state == .active, status.condition == .authFailed {
                    skipped.append(AccountOutcome(account: account.name, action: .skipped, condition: .authFailed, error: status.lastError))
                } else if options.honourBackoff, let next = status.nextRetryAt, next > options.now() {
                    skipped.append(AccountOutcome(account: account.name, action: .skipped, condition: status.condition, error: status.lastError))
                } else if account.state != .active || device.token == nil {
                    groups.append([Assignment(account: account, desire: .release)])
                } else {
                    eligible.append(account)
                }
            }
            groups += Self.holdGroups(eligible, record: instances[instance])
        }

        var outcomes = skipped
        await withTaskGroup(of: GroupResult.self) { group in
            var pending = groups
            var running = 0
            let width = max(1, options.concurrency)
            func startWhatFits() {
                while running < width, !pending.isEmpty, options.mayStartMore() {
                    let assignments = pending.removeFirst()
                    running += 1
                    group.addTask { await runGroup(assignments, device: device) }
                }
            }
            startWhatFits()
            for await finished in group {
                running -= 1
                outcomes += finished.outcomes
                // Accounts whose instance was just learned to keep a row per account no
                // longer need to wait for each other: they join the queue on their own.
                pending += finished.deferred.map { [$0] }
                startWhatFits()
            }
        }
        let order = Dictionary(uniqueKeysWithValues: accounts.enumerated().map { ($1.name, $0) })
        return outcomes.sorted { (order[$0.account] ?? 0) < (order[$1.account] ?? 0) }
    }

    /// Who holds the token on an instance. On a server that keeps one row per token only one
    /// account can: the preferred one, else the earliest signed in. While the server's
    /// behaviour is unknown, the accounts form one group run in order, holder first.
    static func holdGroups(_ eligible: [AccountRecord], record: InstanceRecord?) -> [[Assignment]] {
        guard !eligible.isEmpty else { return [] }
        let policy = record?.rowPolicy ?? .unknown
        if policy == .perAccount || eligible.count == 1 {
            return eligible.map { [Assignment(account: $0, desire: .hold)] }
        }
        let holder = eligible.first { $0.id == record?.preferredAccountID } ?? eligible[0]
        let others = eligible.filter { $0.id != holder.id }
        if policy == .perToken {
            return [[Assignment(account: holder, desire: .hold)]]
                + others.map { [Assignment(account: $0, desire: .shadowed(by: holder.name))] }
        }
        return [[Assignment(account: holder, desire: .hold)] + others.map { Assignment(account: $0, desire: .probe(holder: holder.name)) }]
    }

    /// An account and what it should have.
    struct Assignment: Sendable {
        enum Role: Equatable, Sendable {
            case hold
            case shadowed(by: String)
            case release
            /// Hold, to learn whether the instance lets a second account keep the token.
            case probe(holder: String)
        }

        let account: AccountRecord
        let desire: Role
    }

    /// Runs a group's accounts one after another. A probe that sees the holder's row move to
    /// its account learns that the instance keeps one row per token: the holder takes the
    /// row back and the rest are shadowed. A probe that gets a row of its own learns the
    /// opposite, and the rest hold too.
    private func runGroup(_ assignments: [Assignment], device: DeviceRecord) async -> GroupResult {
        var outcomes: [AccountOutcome] = []
        var deferred: [Assignment] = []
        var holderIndex: Int?
        var holderID: Int?
        var learned: RowPolicy?
        for assignment in assignments {
            switch assignment.desire {
            case .hold:
                let result = await reconcileOne(assignment.account, .hold, device: device)
                holderIndex = outcomes.count
                holderID = result.heldID
                outcomes.append(result.outcome)
            case .shadowed(let holder):
                outcomes.append(await reconcileOne(assignment.account, .shadowed(by: holder), device: device).outcome)
            case .release:
                outcomes.append(await reconcileOne(assignment.account, .release, device: device).outcome)
            case .probe(let holder):
                if learned == .perToken {
                    deferred.append(Assignment(account: assignment.account, desire: .shadowed(by: holder)))
                    continue
                }
                guard let heldBefore = holderID else {
                    outcomes.append(await reconcileOne(assignment.account, .shadowed(by: holder), device: device).outcome)
                    continue
                }
                if learned == .perAccount {
                    deferred.append(Assignment(account: assignment.account, desire: .hold))
                    continue
                }
                var probe = await reconcileOne(assignment.account, .hold, device: device)
                guard let probeID = probe.heldID else {
                    outcomes.append(probe.outcome)
                    continue
                }
                if probeID == heldBefore {
                    learned = .perToken
                    logger.info("instance.learned", ["instance": assignment.account.instance.description, "row.policy": "per-token"])
                    try? await store.setRowPolicy(.perToken, for: assignment.account.instance)
                    // Hand the row back to the holder, then settle this account as shadowed.
                    if let index = holderIndex, let holderAccount = assignments.first(where: { $0.desire == .hold })?.account {
                        let again = await reconcileOne(holderAccount, .hold, device: device)
                        outcomes[index] = Self.merge(outcomes[index], again.outcome)
                    }
                    let settled = await reconcileOne(assignment.account, .shadowed(by: holder), device: device)
                    probe.outcome = Self.merge(probe.outcome, settled.outcome)
                } else {
                    learned = .perAccount
                    logger.info("instance.learned", ["instance": assignment.account.instance.description, "row.policy": "per-account"])
                    try? await store.setRowPolicy(.perAccount, for: assignment.account.instance)
                }
                outcomes.append(probe.outcome)
            }
        }
        return GroupResult(outcomes: outcomes, deferred: deferred)
    }

    /// What a group did, and the accounts it handed back to run on their own.
    private struct GroupResult: Sendable {
        var outcomes: [AccountOutcome]
        var deferred: [Assignment]
    }

    /// Two passes over one account in one run, reported as one: the later state, the summed cost.
    private static func merge(_ first: AccountOutcome, _ second: AccountOutcome) -> AccountOutcome {
        var merged = second
        merged.requests += first.requests
        merged.writes += first.writes
        // The first pass says what this run did to the account; a second pass that only took
        // back what the first made (or found it in place) does not change that.
        if first.action != .unchanged && second.action != .shadowed {
            merged.action = first.action
        }
        return merged
    }

    private func reconcileOne(_ account: AccountRecord, _ desire: Desire, device: DeviceRecord) async -> AccountReconciler.Result {
        let client: GitbayClient
        do {
            client = try await GitbayClient.forAccount(account, in: store, configuration: options.client, logger: logger)
        } catch {
            let (condition, _) = FailurePolicy.classify(error, failures: 1)
            return AccountReconciler.Result(
                outcome: AccountOutcome(account: account.name, action: .failed, condition: condition, error: String(describing: error)),
                heldID: nil
            )
        }
        let reconciler = AccountReconciler(
            store: store, account: account, device: device, client: client,
            logger: logger.with(["account.name": account.name]), now: options.now, backoffCeiling: options.backoffCeiling
        )
        return await reconciler.reconcile(desire)
    }
}
