import GitbayState

/// One account's passes in a run: what the next pass plans from, and the requests and writes
/// of the passes a change superseded.
///
/// A class, so that the async frame driving the passes (kept for as long as the account's
/// request is in flight) holds one reference rather than the records.
final class AccountPasses {
    private(set) var account: AccountRecord
    private(set) var desire: Desire
    private(set) var device: DeviceRecord
    /// What the run read before the first request; nil once a pass has been planned again
    /// (the next one reads afresh).
    private(set) var start: Reconciler.AccountStart?
    private var spent = (requests: 0, writes: 0)

    init(_ account: AccountRecord, _ desire: Desire, facts: RunFacts) {
        self.account = account
        self.desire = desire
        device = facts.device
        start = Reconciler.AccountStart(
            status: facts.statuses[account.id] ?? AccountStatusRecord(), records: facts.registrations[account.id] ?? [],
            apiToken: facts.apiTokens[account.id])
    }

    /// What the next pass is planned for.
    var snapshot: DesireSnapshot { DesireSnapshot(desire: desire, generation: device.generation, label: device.label) }

    /// The account's result when `pass` ends its passes; nil when a change superseded it, after
    /// counting what it spent.
    func result(of pass: AccountReconciler.Pass, planned snapshot: DesireSnapshot) -> Reconciler.Reconciled? {
        var result: Reconciler.Reconciled
        switch pass {
        case .done(let outcome): result = .init(outcome: outcome)
        case .steady(let outcome, let verdict): result = .init(outcome: outcome, steady: .init(verdict: verdict, snapshot: snapshot))
        case .superseded(let requests, let writes):
            spent = (spent.requests + requests, spent.writes + writes)
            start = nil
            return nil
        }
        result.outcome.requests += spent.requests
        result.outcome.writes += spent.writes
        return result
    }

    /// Plans the next pass from the account, its desire and the device read afresh; the
    /// account's result when it is not to be reconciled any more (or they cannot be read).
    func planAgain(from fresh: Result<Fresh?, any Error>) -> Reconciler.Reconciled? {
        switch fresh {
        case .success(let read):
            guard let read, let next = read.snapshot.desire else {
                return ended(.skipped, condition: .pending, reason: "signed out, or its token refused, during the run")
            }
            (account, desire, device) = (read.account, next, read.device)
            return nil
        case .failure(let error):
            return ended(.failed, condition: .error, error: String(describing: error))
        }
    }

    /// The account, what it should have and the device, as read afresh for another pass.
    typealias Fresh = (account: AccountRecord, snapshot: DesireSnapshot, device: DeviceRecord)

    /// The result when what the account should have kept changing through every pass.
    func stillChanging() -> Reconciler.Reconciled {
        ended(.skipped, condition: .pending, reason: "what it should have kept changing during the run; the next `gitbay-sync run` brings it in line")
    }

    private func ended(
        _ action: AccountOutcome.Action, condition: AccountCondition, reason: String? = nil, error: String? = nil
    ) -> Reconciler.Reconciled {
        .init(
            outcome: AccountOutcome(
                account: account.name, action: action, condition: condition, requests: spent.requests, writes: spent.writes,
                error: error, reason: reason))
    }
}
