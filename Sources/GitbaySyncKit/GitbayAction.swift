import GitbayKeyring
import GitbayReconcile
import GitbayState

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What a run did on the server for an account. The raw values are the words of `run --json`.
public enum GitbayAction: String, Sendable, CaseIterable {
    /// Nothing to do: the server already held exactly the rows it should.
    case unchanged
    /// First registration with the current device token.
    case added
    /// The row was gone (reaped, removed on the web, its id reused) and was added again, or its
    /// label was rewritten.
    case reAdded = "re-added"
    /// The new device token was added and the rows of old ones removed.
    case rotated
    /// A row of this device's without a record (left by a crash) was recorded; no write needed.
    case adopted
    /// Rows of this device's were removed (paused, signing out, old tokens, no device token).
    case removed
    /// Another account of the same server holds the device token.
    case shadowed
    /// Not attempted: see the result's `skipReason`.
    case skipped
    /// The run failed for the account: see the result's `failure`.
    case failed

    init(_ action: AccountOutcome.Action) {
        switch action {
        case .unchanged: self = .unchanged
        case .added: self = .added
        case .reAdded: self = .reAdded
        case .rotated: self = .rotated
        case .adopted: self = .adopted
        case .removed: self = .removed
        case .shadowed: self = .shadowed
        case .skipped: self = .skipped
        case .failed: self = .failed
        }
    }
}

/// Where an account stands. The raw values are the words of `status --json`.
public enum GitbayCondition: String, Sendable, CaseIterable {
    /// Not reconciled yet.
    case pending
    /// This device holds a row for the account with the current device token.
    case registered
    /// Another account of the same server holds the device token (a server allows one).
    case shadowed
    /// Signed in without pushes: no row for it.
    case paused
    /// Being signed out.
    case removing
    /// The API token is no longer valid: the account needs a new one.
    case authFailed = "auth-failed"
    /// The token may not register devices (read-only, or the account is disabled).
    case denied
    /// The server does not send push notifications.
    case pushDisabled = "push-disabled"
    /// A failure a later run may get past.
    case error
    /// No device token is set, so there is nothing to register.
    case noDeviceToken = "no-device-token"

    init(_ condition: AccountCondition) {
        switch condition {
        case .pending: self = .pending
        case .registered: self = .registered
        case .shadowed: self = .shadowed
        case .paused: self = .paused
        case .removing: self = .removing
        case .authFailed: self = .authFailed
        case .denied: self = .denied
        case .pushDisabled: self = .pushDisabled
        case .error: self = .error
        case .noDeviceToken: self = .noDeviceToken
        }
    }
}

/// Why a run could not check an account: nothing was asked of its server. Not a success.
public enum GitbayNotCheckedReason: String, Sendable, CaseIterable {
    /// The token store that holds its API token is locked.
    case tokenStoreLocked = "keyring-locked"
    /// The token store that holds its API token is not there or did not answer.
    case tokenStoreUnavailable = "keyring-unavailable"
    /// Another process (an agent on the same database) held the account all through the run.
    case heldElsewhere = "held-elsewhere"
    /// What it should have kept changing through every pass of the run.
    case keptChanging = "kept-changing"

    init(_ reason: UncheckedReason) {
        switch reason {
        case .keyringLocked: self = .tokenStoreLocked
        case .keyringUnavailable: self = .tokenStoreUnavailable
        case .heldElsewhere: self = .heldElsewhere
        case .keptChanging: self = .keptChanging
        }
    }
}

/// Why a run left an account alone.
public enum GitbaySkipReason: Sendable, Equatable {
    /// Its API token was refused: nothing is sent with it until it signs in again.
    case tokenRefused
    /// It is being signed out and its API token was refused: the sign-out waits for a new
    /// sign-in, or a forced sign-out.
    case removalTokenRefused
    /// It waits out a backoff after a failure.
    case backingOff
    /// Another process (`pid`, since `since`) is reconciling it.
    case heldElsewhere(pid: Int32, since: Date)
    /// Signed out (or its token refused) while the run was at it.
    case signedOutDuringRun
    /// What it should have kept changing through every pass of the run.
    case keptChanging
    /// Signed in again while its sign-out finished: it stays signed in.
    case signedInAgain
    /// The token store holding its API token could not be read.
    case tokenStoreUnavailable(GitbayTokenStoreFailure)

    init(_ reason: RunSchedule.SkipReason) {
        switch reason {
        case .tokenRefused: self = .tokenRefused
        case .removalTokenRefused: self = .removalTokenRefused
        case .backingOff: self = .backingOff
        case .heldElsewhere(let pid, let since): self = .heldElsewhere(pid: pid, since: since)
        case .signedOutDuringRun: self = .signedOutDuringRun
        case .keptChanging: self = .keptChanging
        case .signedInAgain: self = .signedInAgain
        case .keyringUnavailable(let reason): self = .tokenStoreUnavailable(GitbayTokenStoreFailure(reason))
        }
    }
}

/// Why a failed account waits before its next attempt.
public enum GitbayRetryReason: String, Sendable, CaseIterable {
    /// An ordinary failure: one minute, doubling per failure in a row, capped.
    case backoff
    /// The server asked for the wait (`Retry-After`).
    case retryAfter = "retry-after"
    /// The server's per-account write limit named the wait.
    case writeLimit = "write-limit"
    /// The token may not register devices: retried rarely.
    case denied
    /// The server sends no pushes: retried rarely.
    case pushDisabled = "push-disabled"

    init(_ reason: RetryReason) {
        switch reason {
        case .backoff: self = .backoff
        case .retryAfter: self = .retryAfter
        case .writeLimit: self = .writeLimit
        case .denied: self = .denied
        case .pushDisabled: self = .pushDisabled
        }
    }
}

/// What the user wants for an account.
public enum GitbayAccountState: String, Sendable, CaseIterable {
    /// Signed in: this device is registered for it.
    case active
    /// Signed in without pushes: this device is not registered for it.
    case paused
    /// Being signed out: the sign-out waits for the server, and the next `reconcile()` retries it.
    case removing

    init(_ state: AccountState) {
        switch state {
        case .active: self = .active
        case .paused: self = .paused
        case .removing: self = .removing
        }
    }
}
