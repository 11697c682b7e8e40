import GitbayAPI
import GitbayState
import GitbaySupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One account's reconcile in a run, as a value: an event in (an answer, a failure, what the
/// store said), the next step out (a request, a store write, the end). Everything it decides
/// is here: what to ask the list with, what the answer calls for, the lease before the first
/// write, the check before each write that what it plans for is still wanted, the row an add
/// answered without its id, the list that confirms writes, the verdict, how a failure is
/// recorded, and when to plan again. `PassPool` carries the steps out, and nothing else.
///
/// A pass is planned for one desire (`DesireSnapshot`). When it changes under the pass (a new
/// token, a pause, another holder), the pass stops writing, reads the account afresh and plans
/// again, at most `Reconciler.passes` times in all.
package struct AccountPass: Sendable {
    /// What the driver does next.
    package enum Step: Sendable, Equatable {
        /// `device list`, with the remembered tag while it vouches (nil: a plain list).
        case list(ifNoneMatch: String?)
        /// The account's lease, while its records are still these.
        case takeLease(planningFrom: [RegistrationRecord])
        /// Whether what the pass plans for is still what the account wants, before a write.
        case checkStillWanted(DesireSnapshot)
        /// `device add` of the current token with the device's label.
        case add
        /// `device remove` of a row of this install.
        case remove(id: Int, reason: PlannedAction.RemovalReason)
        /// Records a row of this install holding the current token.
        case record(RegistrationRecord)
        /// Forgets a record; no request.
        case forget(deviceID: Int, reason: PlannedAction.ForgetReason)
        /// The account's doubt (`RowDoubt`), read when a row it recorded is missing from its list.
        case readDoubt
        /// Records that this account's instance URL and another name one server.
        case recordSameServer(SameServerRecord)
        /// Saves the verdict while the account still wants what the pass planned for.
        case save(AccountStatusRecord, ifStill: DesireSnapshot)
        /// Gives the account's lease back.
        case giveBackLease
        /// Reads the account, its desire, the device, its verdict and records afresh.
        case readAfresh
        /// The end: the account's result.
        case finish(Reconciler.Reconciled)
    }

    /// What the driver saw.
    package enum Event: Sendable {
        case listed([ServerDevice], etag: String?)
        case notModified
        case lease(LeaseTaking)
        case stillWanted(Bool)
        /// The add went through; the id of the row, when the server names it.
        case added(id: Int?)
        case removed
        /// The account's doubt, if it has one.
        case doubt(RowDoubt?)
        /// The proof of one server was recorded; false when it was known already.
        case proven(Bool)
        /// A record or forget was written.
        case stored
        /// The verdict was saved, or (false) the account no longer wants what it was planned for.
        case saved(Bool)
        case leaseGivenBack
        case fresh(Fresh?)
        case failed(AccountFailure)
        /// No client could be made for the account (no API token stored).
        case noClient(AccountFailure)
    }

    /// An account as read afresh for another pass; nil when it is signed out.
    package struct Fresh: Sendable {
        package let account: AccountRecord
        package let snapshot: DesireSnapshot
        package let device: DeviceRecord
        package let status: AccountStatusRecord
        package let records: [RegistrationRecord]

        package init(
            account: AccountRecord, snapshot: DesireSnapshot, device: DeviceRecord, status: AccountStatusRecord, records: [RegistrationRecord]
        ) {
            self.account = account
            self.snapshot = snapshot
            self.device = device
            self.status = status
            self.records = records
        }
    }

    /// What is fixed for the run.
    package struct Settings: Sendable {
        /// The longest wait before retrying a failed account.
        package var backoffCeiling: Duration
        /// The doubts raised when the pass's round began (`RunFacts.doubtMark`): its verdict
        /// settles those, and no later one.
        package var doubtMark: Int64

        package init(backoffCeiling: Duration, doubtMark: Int64 = 0) {
            self.backoffCeiling = backoffCeiling
            self.doubtMark = doubtMark
        }
    }

    let settings: Settings
    var account: AccountRecord
    var device: DeviceRecord
    var snapshot: DesireSnapshot
    var decision: AccountDecision
    /// The account's records as this pass knows them: read when it began, then kept up to
    /// date with what it records and forgets (it holds the lease while it changes them).
    var records: [RegistrationRecord]
    /// The verdict read when the pass began, and the one it makes.
    var read: AccountStatusRecord
    var status: AccountStatusRecord
    var startedAt = Date.distantPast
    /// When the event being handled happened: the pass reads no clock of its own.
    var now = Date.distantPast
    var outcome: AccountOutcome
    var phase = Phase.listing
    var hadRecords: Bool
    /// What this pass made of its list, as far as it got: begun afresh when it plans again.
    var work = Work()
    /// The lease, taken when this pass took it (and not yet given back).
    var leaseTaken = false
    /// The row held left the list confirming the writes: the run checks the account again.
    var checkAgain = false
    /// When this account's latest add in the run was sent: a row recorded by another account
    /// before it is one that add may have moved (`StateStore.recordRegistration`).
    var addSentAt: Date?
    /// Passes begun, this one included, and the writes of this one and of superseded ones.
    var passes = 1
    var writes = 0

    /// The account's first pass, from what the run read before its first request.
    package init(
        account: AccountRecord, desire: Desire, device: DeviceRecord, status: AccountStatusRecord, records: [RegistrationRecord], settings: Settings
    ) {
        self.settings = settings
        self.account = account
        self.device = device
        snapshot = DesireSnapshot(desire: desire, generation: device.generation, label: device.label)
        decision = AccountDecision(desire: desire, account: account, device: device)
        self.records = records
        read = status
        self.status = status
        hadRecords = !records.isEmpty
        outcome = AccountOutcome(account, action: .unchanged, condition: .pending)
    }

    /// The first step, `now`.
    package mutating func begin(at now: Date) -> Step {
        self.now = now
        startedAt = now
        status.lastAttemptAt = startedAt
        phase = .listing
        return .list(ifNoneMatch: decision.tagToSend(remembered: status, records: records))
    }

    /// Where the pass is.
    enum Phase: Sendable {
        case listing
        case leasing
        /// A row the account recorded is missing from its list: reading its doubt, then
        /// (`recording`) recording the proof of one server it makes, before planning.
        case proving(DeviceList, recording: Bool)
        /// Carrying actions out; `pending` are what is left, `current` the one in flight, and
        /// `then` what comes once none is left.
        case acting(current: Operation?, pending: [Operation], then: AfterActing)
        /// After an add answered without its id, the list that finds its row; `again` once the
        /// candidates were removed and the token added afresh. `pending` are the operations
        /// left after the add.
        case finding(again: Bool, pending: [Operation])
        case confirming
        case saving
        case givingBack(then: AfterLease)
        case readingAfresh
        case done
    }

    /// What follows carrying actions out.
    enum AfterActing: Sendable, Equatable {
        /// The plan's: the verdict.
        case verdict
        /// The confirming list's (its records completed): remember its tag.
        case confirmed(tag: String?)
    }

    /// What follows giving the lease back. Boxed: a result inline would make every phase, and
    /// so every pass in flight, as large as it (1,376 bytes a pass instead of 2,016).
    indirect enum AfterLease: Sendable {
        case finish(Reconciler.Reconciled)
        case planAgain
    }

    /// What a pass made of its list: what the list showed, the actions planned from it, the
    /// row held as they change it, what becomes of the list's tag, and the verdict once they
    /// went through.
    struct Work: Sendable {
        var listedRows: [Int: ServerDevice] = [:]
        var actions: [PlannedAction] = []
        /// The row held so far, as the actions change it.
        var heldID: Int?
        var tagRule = AccountDecision.TagRule.keepRemembered
        var verdict: AccountDecision.Verdict?
        /// The lease is needed: the pass wrote or was about to.
        var leaseNeeded = false
        /// Rows of the list after an add answered without its id that could not be told apart,
        /// removed before the add made afresh: each may be another name's row the add took.
        var undecided: [ServerDevice] = []
    }

    /// One carried-out action, step by step.
    enum Operation: Sendable, Equatable {
        case forget(id: Int, reason: PlannedAction.ForgetReason)
        case adopt(id: Int)
        /// `checked`: the still-wanted check before the write went through; `again`: the add
        /// made afresh after a v1.32.0 add left several candidate rows.
        case add(settling: [Int], checked: Bool, again: Bool)
        case remove(id: Int, reason: PlannedAction.RemovalReason, checked: Bool, sent: Bool)
        /// Records the row an add answered; then `settling` rows are removed.
        case recordAdded(id: Int, added: String?, settling: [Int])

        init(_ action: PlannedAction) {
            switch action {
            case .forget(let id, let reason): self = .forget(id: id, reason: reason)
            case .adopt(let id): self = .adopt(id: id)
            case .add(let settling): self = .add(settling: settling, checked: false, again: false)
            case .remove(let id, let reason): self = .remove(id: id, reason: reason, checked: false, sent: false)
            }
        }
    }
}
