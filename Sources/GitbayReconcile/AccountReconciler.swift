import FoundationEssentials
import GitbayAPI
import GitbayState
import GitbaySupport

/// Reconciles one account through its own short-lived client: observe (the list), let
/// `AccountDecision` decide, carry the actions out and record each outcome as it happens.
///
/// A class, and `Pass` indirect: every async frame of an account's task (one task stack per
/// account in flight) then holds a reference rather than a copy of the records. One instance
/// carries one pass: `reconcile()` is called once, and a pass planned again gets a new one.
final class AccountReconciler {
    let store: StateStore
    let account: AccountRecord
    let device: DeviceRecord
    /// What the account should have, and everything decided from it.
    let decision: AccountDecision
    let client: GitbayClient
    let logger: Logger
    let now: @Sendable () -> Date
    /// The longest wait before retrying a failed account (the timer's period, when there is one).
    let backoffCeiling: Duration
    /// What the plan is made for. Before each write and before the verdict is recorded the
    /// store is asked again: a change made meanwhile (a new token, a pause, another holder)
    /// ends this pass, so that the run plans again instead of undoing it.
    let snapshot: DesireSnapshot
    /// The account's verdict and records as the run read them before its first request; nil
    /// to read them afresh (a pass planned again).
    let start: (status: AccountStatusRecord, records: [RegistrationRecord])?
    /// Taken before the pass's first write, given back when it ends.
    let lease: AccountLease
    /// Looks around each add for the proof that two URLs name one server.
    let sameServer: SameServerCheck
    /// The accounts of other servers listed around this pass's adds.
    var sideWitnesses: [SameServerCheck.Witness] = []

    init(
        store: StateStore, account: AccountRecord, device: DeviceRecord, decision: AccountDecision, client: GitbayClient,
        logger: Logger, now: @escaping @Sendable () -> Date, backoffCeiling: Duration, snapshot: DesireSnapshot,
        start: (status: AccountStatusRecord, records: [RegistrationRecord])?, lease: AccountLease, sameServer: SameServerCheck
    ) {
        self.store = store
        self.account = account
        self.device = device
        self.decision = decision
        self.client = client
        self.logger = logger
        self.now = now
        self.backoffCeiling = backoffCeiling
        self.snapshot = snapshot
        self.start = start
        self.lease = lease
        self.sameServer = sameServer
        outcome = AccountOutcome(account: account.name, action: .unchanged, condition: .pending)
    }

    /// How one pass over the account ended.
    indirect enum Pass {
        case done(AccountOutcome)
        /// Nothing changed: only the verdict's times are to be recorded, with the run's others.
        case steady(AccountOutcome, SteadyVerdict)
        /// The desire changed during the pass; nothing more was written for it.
        case superseded(requests: Int, writes: Int)
    }

    /// Thrown before a write once the desire has changed.
    struct Superseded: Error {}

    /// The account's verdict as this pass read it, before it changed anything.
    private var read = AccountStatusRecord()
    /// The verdict this pass makes: what it records when it ends.
    private var status = AccountStatusRecord()
    private var outcome: AccountOutcome
    /// The server writes this pass made.
    private var writes = 0
    private var startedAt = Date.distantPast

    /// Brings the account to the decision's desire; the outcome names the row of the current
    /// token it holds afterwards.
    ///
    /// The pass's state lives on this object and the async steps are kept small: an account's
    /// task keeps every frame of its deepest chain of awaits while its request is in flight.
    func reconcile() async -> Pass {
        let pass = await reconcileHoldingLeaseForWrites()
        await lease.giveBack()
        return pass
    }

    private func reconcileHoldingLeaseForWrites() async -> Pass {
        if start == nil {
            begin(reading: try? await store.status(ofAccount: account.id))
        } else {
            begin(reading: nil)
        }
        do {
            let verdict = try await observeAndAct()
            Self.succeeded(&status, verdict, at: startedAt)
        } catch {
            if let ended = await ended(by: error) { return ended }
        }
        return await recorded()
    }

    /// Starts the pass from the verdict read afresh, or from the one the run read.
    private func begin(reading fresh: AccountStatusRecord?) {
        read = fresh ?? start?.status ?? AccountStatusRecord()
        status = read
        startedAt = now()
        status.lastAttemptAt = startedAt
    }

    /// How a pass that threw ends; nil when the failure is recorded like any verdict.
    private func ended(by error: any Error) async -> Pass? {
        if error is Superseded { return .superseded(requests: await requestsMade(), writes: writes) }
        if let held = error as? AccountLease.HeldElsewhere { return .done(await leftToHolder(held.lease, status: read)) }
        outcome.action = .failed
        outcome.error = String(describing: error)
        guard Self.isCancellation(error) else {
            failed(error, at: startedAt, status: &status, outcome: &outcome)
            return nil
        }
        // Stopped on purpose: not the account's failure, and nothing more is recorded.
        outcome.condition = status.condition
        outcome.writes = writes
        outcome.requests = await requestsMade()
        return .done(outcome)
    }

    /// Records the pass's verdict and ends it.
    private func recorded() async -> Pass {
        outcome.writes = writes
        outcome.requests = await requestsMade()
        // A success that changed nothing on the server or in the records (no lease was needed)
        // is recorded with the run's others, in one transaction at its end.
        if !lease.wasNeeded, status.failures == 0, status.nextRetryAt == nil {
            return .steady(outcome, SteadyVerdict(accountID: account.id, read: read, status: status))
        }
        do {
            guard try await store.saveStatus(status, ofAccount: account.id, ifStill: snapshot) else {
                return .superseded(requests: outcome.requests, writes: writes)
            }
        } catch {
            outcome.action = .failed
            outcome.error = String(describing: error)
        }
        return .done(outcome)
    }

    /// One observe, decide and act: lists (with the remembered tag while it vouches), carries
    /// the plan out, and sets the outcome and the tag to remember. Returns the verdict.
    private func observeAndAct() async throws -> AccountDecision.Verdict {
        let records = if let start { start.records } else { try await store.registrations(ofAccount: account.id) }
        let answer = try await client.listDevices(ifNoneMatch: decision.tagToSend(remembered: status, records: records))
        return try await act(on: answer, records: records)
    }

    /// Plans from the list and carries the plan out. Apart from `observeAndAct`, so that what
    /// it holds is not kept while the list is in flight.
    @inline(never)
    private func act(on answer: DeviceList, records: [RegistrationRecord]) async throws -> AccountDecision.Verdict {
        let plan = decision.plan(records: records, answer: answer)
        if !plan.actions.isEmpty { try await lease.take(planningFrom: records) }
        let rows = if case .list(let rows, _) = answer { rows } else { [ServerDevice]() }
        outcome.deviceID = try await carryOut(plan, rows: rows, writes: &writes)
        let verdict = decision.verdict(actions: plan.actions, hadRecords: !records.isEmpty, heldID: outcome.deviceID)
        outcome.action = verdict.action
        switch plan.tag {
        case .keepRemembered:
            break
        case .remember(let tag, let basis):
            Self.remember(tag, basis: basis, in: &status)
        case .rebase(let tag):
            // Forgotten or adopted records change what the tag vouches for.
            Self.remember(tag, basis: decision.tagBasis(records: try await store.registrations(ofAccount: account.id)), in: &status)
        case .forget:
            Self.remember(nil, basis: nil, in: &status)
        case .confirmAfterWrites:
            let confirmed = await confirmedTag()
            Self.remember(confirmed?.tag, basis: confirmed?.basis, in: &status)
        }
        outcome.condition = verdict.condition
        outcome.shadowedBy = verdict.shadowedBy
        return verdict
    }

    private static func remember(_ tag: String?, basis: String?, in status: inout AccountStatusRecord) {
        status.listETag = tag
        status.etagBasis = tag == nil ? nil : basis
    }

    private static func succeeded(_ status: inout AccountStatusRecord, _ verdict: AccountDecision.Verdict, at startedAt: Date) {
        status.condition = verdict.condition
        status.detail = verdict.detail
        status.lastSuccessAt = startedAt
        status.lastError = nil
        status.nextRetryAt = nil
        status.nextRetryReason = nil
        status.failures = 0
    }

    /// The outcome of a pass that found another live process holding the lease it needed.
    private func leftToHolder(_ lease: LeaseRecord, status: AccountStatusRecord) async -> AccountOutcome {
        let entry = RunSchedule.Entry.skip(account, status, .heldElsewhere(pid: lease.holderPID, since: lease.takenAt))
        var outcome = entry.skippedOutcome ?? AccountOutcome(account: account.name, action: .skipped, condition: status.condition)
        outcome.requests = await requestsMade()
        return outcome
    }

    /// Classifies a failure: the condition, when to try again, and a list tag forgotten.
    private func failed(_ error: any Error, at startedAt: Date, status: inout AccountStatusRecord, outcome: inout AccountOutcome) {
        status.failures += 1
        let (condition, wait) = FailurePolicy.classify(error, failures: status.failures, ceiling: backoffCeiling)
        status.condition = condition
        status.lastError = String(describing: error)
        status.nextRetryAt = wait.map { FailurePolicy.nextAttempt(after: startedAt, waiting: $0) }
        status.nextRetryReason = wait == nil ? nil : FailurePolicy.retryReason(error)
        outcome.nextRetryAt = status.nextRetryAt
        outcome.nextRetryReason = status.nextRetryReason
        status.listETag = nil
        status.etagBasis = nil
        outcome.condition = condition
        logger.warning("account.failed", ["account.name": account.name, "account.condition": condition.rawValue])
    }

    /// The requests this pass made: its own, and those it made for other servers' accounts
    /// around its adds.
    private func requestsMade() async -> Int {
        await client.requestCount + SameServerCheck.requests(of: sideWitnesses)
    }

    /// Ends the pass when what the account should have is no longer what it was planned for.
    func ensureStillWanted() async throws {
        guard try await store.desireSnapshot(ofAccount: account.id) == snapshot else { throw Superseded() }
    }

    static func isCancellation(_ error: Error) -> Bool {
        if error is CancellationError { return true }
        if let error = error as? GitbayError, case .transport(.cancelled) = error.kind { return true }
        return false
    }
}
