import GitbayAPI
import GitbayState
import GitbaySupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension AccountPass {
    /// The step that follows `event`, which happened `now`.
    package mutating func handle(_ event: Event, at now: Date) -> Step {
        self.now = now
        if case .failed(let failure) = event { return failed(failure) }
        switch (phase, event) {
        case (.listing, .listed(let rows, let etag)):
            return planned(.list(rows, etag: etag))
        case (.listing, .notModified):
            return planned(.notModified)
        case (.listing, .noClient(.local(.unusableName))):
            // Not a token to replace: recorded, so that `status` says it until the account is removed.
            return failed(.local(.unusableName))
        case (.listing, .noClient(let failure)):
            return notStarted(failure)
        case (.proving(let answer, false), .doubt(let doubt)):
            return proving(answer, doubt: doubt)
        case (.proving(let answer, true), .proven(let new)):
            // A new proof changes who holds the token on the server: the pass plans again.
            return new ? superseded() : plan(answer)
        case (.leasing, .lease(let taking)):
            return leased(taking)
        case (.acting, _):
            return acted(event)
        case (.finding(let again, let pending), .listed(let rows, _)):
            return found(in: rows, again: again, pending: pending)
        case (.confirming, .listed(let rows, let etag)):
            return confirmed(rows, etag: etag)
        case (.saving, .saved(let saved)):
            return saved ? end(with: Reconciler.Reconciled(outcome: finalOutcome)) : superseded()
        case (.givingBack(let then), .leaseGivenBack):
            switch then {
            case .finish(let result):
                phase = .done
                return .finish(result)
            case .planAgain:
                phase = .readingAfresh
                return .readAfresh
            }
        case (.readingAfresh, .fresh(let fresh)):
            return planAgain(from: fresh)
        default:
            preconditionFailure("event \(event) does not fit phase \(phase)")
        }
    }

    /// The list's answer: when a row the account recorded (with its `added`) is missing from
    /// it, the account's doubt is read first, for the proof of one server it may complete.
    private mutating func planned(_ answer: DeviceList) -> Step {
        if case .list(let rows, _) = answer {
            work.listedRows = Dictionary(rows.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
            if records.contains(where: { $0.added != nil && work.listedRows[$0.deviceID] == nil }) {
                phase = .proving(answer, recording: false)
                return .readDoubt
            }
        }
        return plan(answer)
    }

    /// The proof of one server, from a doubt naming a row of the same id and `added` that
    /// another account recorded under `doubt.instance`: this account recorded that row, and
    /// its own list, read after, no longer has it. The row moved between the two names.
    ///
    /// Two servers give the same row id at the same millisecond only by chance, and then both
    /// rows stay listed; only that chance and this account's row removed between its record
    /// and this list could give the same sequence. Nothing is proven from ids alone.
    private mutating func proving(_ answer: DeviceList, doubt: RowDoubt?) -> Step {
        guard let doubt, let id = doubt.deviceID, let added = doubt.added, work.listedRows[id] == nil,
            records.contains(where: { $0.deviceID == id && $0.added == added }),
            let other = try? InstanceURL(parsing: doubt.instance), other != account.instance
        else { return plan(answer) }
        phase = .proving(answer, recording: true)
        return .recordSameServer(SameServerRecord(instance: account.instance, other: other, deviceID: id, added: added, provenAt: now))
    }

    /// The plan for the list's answer: no action needs nothing more than the verdict; any
    /// action needs the lease first.
    private mutating func plan(_ answer: DeviceList) -> Step {
        let plan = decision.plan(records: records, answer: answer)
        (work.actions, work.heldID, work.tagRule) = (plan.actions, plan.heldID, plan.tag)
        guard !work.actions.isEmpty else { return afterActions() }
        work.leaseNeeded = true
        phase = .leasing
        return .takeLease(planningFrom: records)
    }

    private mutating func leased(_ taking: LeaseTaking) -> Step {
        switch taking {
        case .taken:
            leaseTaken = true
        case .alreadyHeld:
            break
        case .heldElsewhere(let lease):
            let entry = RunSchedule.Entry.skip(account, read, .heldElsewhere(pid: lease.holderPID, since: lease.takenAt))
            var left = entry.skippedOutcome ?? AccountOutcome(account, action: .skipped, condition: read.condition)
            left.writes = writes
            return end(with: Reconciler.Reconciled(outcome: left))
        case .recordsChanged, .gone:
            return superseded()
        }
        phase = .acting(current: nil, pending: work.actions.map(Operation.init), then: .verdict)
        return nextOperation()
    }

    /// The verdict once the actions went through, and the tag it leaves to remember.
    mutating func afterActions() -> Step {
        let verdict = decision.verdict(actions: work.actions, hadRecords: hadRecords, heldID: work.heldID)
        work.verdict = verdict
        outcome.deviceID = work.heldID
        if verdict.action != .unchanged || !outcome.action.changed { outcome.action = verdict.action }
        outcome.condition = verdict.condition
        outcome.shadowedBy = verdict.shadowedBy
        switch work.tagRule {
        case .keepRemembered:
            break
        case .remember(let tag, let basis):
            remember(tag, basis: basis)
        case .rebase(let tag):
            // Forgotten or adopted records change what the tag vouches for.
            remember(tag, basis: decision.tagBasis(records: records))
        case .forget:
            remember(nil, basis: nil)
        case .confirmAfterWrites:
            // The list seen before the writes no longer describes the server: only a fresh
            // list that needs no more writes may vouch.
            phase = .confirming
            return .list(ifNoneMatch: nil)
        }
        return succeeded()
    }

    /// The list after writes: its tag is remembered when it needs no more writes, once the
    /// records it completes (a new row's `added`) are written.
    private mutating func confirmed(_ rows: [ServerDevice], etag: String?) -> Step {
        let plan = decision.plan(records: records, answer: .list(rows, etag: etag))
        guard !plan.actions.contains(where: \.isWrite) else {
            remember(nil, basis: nil)
            if let held = work.heldID, !rows.contains(where: { $0.id == held }) {
                // The row just written left the list at once: another account, perhaps under
                // another name of this server, took it. Said as it stands; checked again.
                work.verdict?.condition = .pending
                work.verdict?.detail = "its row left the device list right after it was written; checked again"
                outcome.condition = .pending
                checkAgain = true
            }
            return succeeded()
        }
        work.listedRows = Dictionary(rows.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        phase = .acting(current: nil, pending: plan.actions.map(Operation.init), then: .confirmed(tag: etag))
        return nextOperation()
    }

    mutating func remember(_ tag: String?, basis: String?) {
        status.listETag = tag
        status.etagBasis = tag == nil ? nil : basis
    }

    /// A pass whose actions all went through: its verdict, recorded with the run's others when
    /// nothing changed (no lease was needed), else saved now.
    mutating func succeeded() -> Step {
        if let verdict = work.verdict {
            status.condition = verdict.condition
            status.detail = verdict.detail
        }
        status.lastSuccessAt = startedAt
        (status.lastError, status.nextRetryAt, status.nextRetryReason, status.failures, status.unchecked) = (nil, nil, nil, 0, nil)
        guard work.leaseNeeded else {
            let steady = Reconciler.Steady(verdict: SteadyVerdict(accountID: account.id, read: read, status: status), snapshot: snapshot)
            return end(with: Reconciler.Reconciled(outcome: finalOutcome, steady: steady))
        }
        phase = .saving
        return .save(status, ifStill: snapshot)
    }

    /// The outcome as it stands, with every write this account's passes made.
    var finalOutcome: AccountOutcome {
        var outcome = outcome
        outcome.writes = writes
        return outcome
    }

    /// Ends with `result`, giving the lease back first if this pass took it.
    mutating func end(with result: consuming Reconciler.Reconciled) -> Step {
        result.checkAgain = checkAgain
        guard leaseTaken else {
            phase = .done
            return .finish(result)
        }
        leaseTaken = false
        phase = .givingBack(then: .finish(result))
        return .giveBackLease
    }

    /// What the pass planned for is no longer wanted: nothing more is written for it; the
    /// account is read afresh and planned again.
    mutating func superseded() -> Step {
        guard leaseTaken else {
            phase = .readingAfresh
            return .readAfresh
        }
        leaseTaken = false
        phase = .givingBack(then: .planAgain)
        return .giveBackLease
    }
}
