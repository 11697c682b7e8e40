import GitbayAPI
import GitbayState
import GitbaySupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What a reconcile did for one account: the `run --json` object and the journal line.
package struct AccountOutcome: Sendable, Equatable {
    /// What changed on the server.
    package enum Action: String, Sendable {
        /// Nothing to do: the server already held exactly the desired rows.
        case unchanged
        /// First registration with the current token.
        case added
        /// The row was gone (reaped, removed on the web, id reused) and was added again, or
        /// its label was rewritten.
        case reAdded = "re-added"
        /// The new token was added and rows of old tokens removed.
        case rotated
        /// A row of ours without a record (left by a crash) was recorded, no write needed.
        case adopted
        /// Rows of ours were removed (paused, removing, old tokens, no device token).
        case removed
        /// Another account of the instance holds the device token.
        case shadowed
        /// Not attempted: its token was refused, it waits out a backoff or for the keyring that
        /// holds its token, another gitbay-sync is reconciling it, or what it should have kept
        /// changing during the run.
        case skipped
        case failed

        /// Whether the action changed the server or the records: what a later pass of the
        /// same run that changes nothing leaves standing.
        package var changed: Bool {
            switch self {
            case .added, .reAdded, .rotated, .adopted, .removed: true
            case .unchanged, .shadowed, .skipped, .failed: false
            }
        }
    }

    /// The fields, held once on the heap: an outcome is handed through a couple of dozen
    /// copies on its way to the words and the history, and a copy then costs one reference
    /// count instead of one per string. Changed in place when this value holds the only
    /// reference, copied first when it is shared.
    private struct Values: Equatable {
        var accountID: Int64
        var account: String
        var instance: InstanceURL
        var sshDestination: String?
        var action: Action
        var condition: AccountCondition
        var deviceID: Int?
        var requests: Int
        var writes: Int
        var shadowedBy: String?
        var failure: AccountFailure?
        var nextRetryAt: Date?
        var nextRetryReason: RetryReason?
        var skipReason: RunSchedule.SkipReason?
        var tokenMove: TokenMove?
        var tokenRenewal: TokenRenewal?
        var stopped = false
    }

    /// `@unchecked Sendable` invariant: `values` is written only through `AccountOutcome.values`,
    /// which first makes this box the value's own (`isKnownUniquelyReferenced`); a box two values
    /// share, which another thread may read, is never written.
    private final class Box: @unchecked Sendable {
        var values: Values
        init(_ values: Values) { self.values = values }
    }

    private var box: Box

    private var values: Values {
        get { box.values }
        _modify {
            if !isKnownUniquelyReferenced(&box) { box = Box(box.values) }
            yield &box.values
        }
    }

    /// The account's id in the state database: what outcomes are keyed and joined by.
    package var accountID: Int64 {
        get { box.values.accountID }
        set { values.accountID = newValue }
    }
    /// Its name, `user@host[:port]`, for the words a caller prints.
    package var account: String {
        get { box.values.account }
        set { values.account = newValue }
    }
    /// Its instance.
    package var instance: InstanceURL {
        get { box.values.instance }
        set { values.instance = newValue }
    }
    /// Where its server serves SSH, as `login --ssh` was given it.
    package var sshDestination: String? {
        get { box.values.sshDestination }
        set { values.sshDestination = newValue }
    }
    package var action: Action {
        get { box.values.action }
        set { values.action = newValue }
    }
    package var condition: AccountCondition {
        get { box.values.condition }
        set { values.condition = newValue }
    }
    /// The server row this device holds for the account, when it holds one.
    package var deviceID: Int? {
        get { box.values.deviceID }
        set { values.deviceID = newValue }
    }
    /// HTTP requests made for the account in this run, retries included.
    package var requests: Int {
        get { box.values.requests }
        set { values.requests = newValue }
    }
    /// Writes (`device add`, `device remove`) among them.
    package var writes: Int {
        get { box.values.writes }
        set { values.writes = newValue }
    }
    /// The account holding the token when this one is shadowed.
    package var shadowedBy: String? {
        get { box.values.shadowedBy }
        set { values.shadowedBy = newValue }
    }
    /// What failed, as a value (its description is also recorded as the account's last
    /// error); for a skipped account, what failed when it was last tried.
    package var failure: AccountFailure? {
        get { box.values.failure }
        set { values.failure = newValue }
    }
    /// When a failed or waiting account is tried again (nil: at the next run, or, for a
    /// refused token, after the next sign-in).
    package var nextRetryAt: Date? {
        get { box.values.nextRetryAt }
        set { values.nextRetryAt = newValue }
    }
    /// Why it waits until `nextRetryAt`.
    package var nextRetryReason: RetryReason? {
        get { box.values.nextRetryReason }
        set { values.nextRetryReason = newValue }
    }
    /// Why the run left it alone, when it did; `removalTokenRefused` also for the run that
    /// found the token of an account being removed refused.
    package var skipReason: RunSchedule.SkipReason? {
        get { box.values.skipReason }
        set { values.skipReason = newValue }
    }
    /// Where the run moved the API token an earlier version kept in the database, when it
    /// tried: into the OS keyring, or not.
    package var tokenMove: TokenMove? {
        get { box.values.tokenMove }
        set { values.tokenMove = newValue }
    }
    /// What the run did to the account's API token (rotated it, revoked stale ones), when it
    /// did anything.
    package var tokenRenewal: TokenRenewal? {
        get { box.values.tokenRenewal }
        set { values.tokenRenewal = newValue }
    }
    /// The run was stopped while the account's pass was in flight: its requests were cancelled
    /// and nothing of the pass was recorded (`failure` is the cancellation).
    package var stopped: Bool {
        get { box.values.stopped }
        set { values.stopped = newValue }
    }

    package init(
        _ account: AccountRecord, action: Action, condition: AccountCondition, deviceID: Int? = nil, requests: Int = 0,
        writes: Int = 0, shadowedBy: String? = nil, failure: AccountFailure? = nil,
        nextRetryAt: Date? = nil, nextRetryReason: RetryReason? = nil, skipReason: RunSchedule.SkipReason? = nil
    ) {
        self.init(
            accountID: account.id, account: account.name, instance: account.instance, action: action, condition: condition,
            deviceID: deviceID, requests: requests, writes: writes, shadowedBy: shadowedBy, failure: failure,
            nextRetryAt: nextRetryAt, nextRetryReason: nextRetryReason, skipReason: skipReason)
        sshDestination = account.sshDestination
    }

    package init(
        accountID: Int64, account: String, instance: InstanceURL, action: Action, condition: AccountCondition,
        deviceID: Int? = nil, requests: Int = 0, writes: Int = 0, shadowedBy: String? = nil, failure: AccountFailure? = nil,
        nextRetryAt: Date? = nil, nextRetryReason: RetryReason? = nil, skipReason: RunSchedule.SkipReason? = nil
    ) {
        box = Box(
            Values(
                accountID: accountID, account: account, instance: instance, action: action, condition: condition,
                deviceID: deviceID, requests: requests, writes: writes, shadowedBy: shadowedBy, failure: failure,
                nextRetryAt: nextRetryAt, nextRetryReason: nextRetryReason, skipReason: skipReason))
    }

    package static func == (lhs: AccountOutcome, rhs: AccountOutcome) -> Bool {
        lhs.box === rhs.box || lhs.box.values == rhs.box.values
    }

    /// True when the run should say it did not do its job for the account: it failed now, or
    /// it is left waiting for a person (`auth-failed`, `denied`, `push-disabled`), whatever
    /// the reason it was skipped. An account that waits out a server's backoff, or is left to
    /// another gitbay-sync reconciling it, is not a failure of this run. `ok` and the exit
    /// code follow this.
    package var isFailure: Bool { action == .failed || condition.needsAttention }

    /// Why the run could not check the account, when it could not: nothing was asked of its
    /// server because its token could not be read, another gitbay-sync held it, or what it
    /// should have kept changing. Not a success: a run with such an account and no failure
    /// exits 75, its history row says `unchecked`, and `status` says why.
    package var unchecked: UncheckedReason? {
        guard !isFailure else { return nil }
        switch skipReason {
        case .keyringUnavailable(let reason): return reason == .locked ? .keyringLocked : .keyringUnavailable
        case .heldElsewhere: return .heldElsewhere
        case .keptChanging: return .keptChanging
        case .tokenRefused, .removalTokenRefused, .backingOff, .signedOutDuringRun, .signedInAgain, nil: return nil
        }
    }
}
