import GitbayKeyring
import GitbayState
import GitbaySupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Which accounts a run reconciles, with what desire, and which it leaves alone and why: a
/// pure function of the accounts, their last outcomes, the user's choices and the leases.
package enum RunSchedule {
    /// Why a run leaves an account alone.
    package enum SkipReason: Sendable, Equatable {
        /// Its API token was refused: nothing is sent with it again until it signs in again.
        case tokenRefused
        /// It is being removed and its API token was refused: nothing is sent with it again,
        /// and the removal waits for a new sign-in (and another removal) or `--force`.
        case removalTokenRefused
        /// It waits out a backoff after a failure.
        case backingOff
        /// Another live gitbay-sync (this pid, since then) is reconciling it.
        case heldElsewhere(pid: Int32, since: Date)
        /// Signed out (or its token refused) while the run was at it.
        case signedOutDuringRun
        /// What it should have kept changing through every pass of the run.
        case keptChanging
        /// Signed in again while its removal finished: it stays signed in.
        case signedInAgain
        /// Its API token is in the OS keyring, which could not be read (locked, gone, slow):
        /// it waits, its token unknown rather than refused, and the next run tries again.
        case keyringUnavailable(KeyringUnavailable)
    }

    /// What a run does with one account.
    enum Entry: Sendable, Equatable {
        /// Reconcile it towards this desire (`.release`: paused, being removed, or no device token).
        case reconcile(AccountRecord, Desire)
        /// Leave it alone this run, reporting its last condition.
        case skip(AccountRecord, AccountStatusRecord, SkipReason)

        var account: AccountRecord {
            switch self {
            case .reconcile(let account, _), .skip(let account, _, _): account
            }
        }

        /// What `run` reports for a skipped account; nil for one it reconciles.
        var skippedOutcome: AccountOutcome? {
            guard case .skip(let account, let status, let reason) = self else { return nil }
            var outcome = Self.outcome(skipping: account, status, reason)
            outcome.skipReason = reason
            return outcome
        }

        private static func outcome(skipping account: AccountRecord, _ status: AccountStatusRecord, _ reason: SkipReason) -> AccountOutcome {
            var outcome = AccountOutcome(account, action: .skipped, condition: status.condition)
            switch reason {
            case .tokenRefused, .backingOff:
                outcome.failure = status.lastError.map(AccountFailure.recorded)
                (outcome.nextRetryAt, outcome.nextRetryReason) = reason == .backingOff ? (status.nextRetryAt, status.nextRetryReason) : (nil, nil)
            case .removalTokenRefused, .heldElsewhere, .signedOutDuringRun, .keptChanging, .signedInAgain, .keyringUnavailable:
                break
            }
            return outcome
        }
    }

    /// Every account's entry, in sign-in order. On an instance one account holds the device
    /// token (every gitbay keeps one row per token): the preferred one, else the earliest
    /// signed in, among the active accounts whose token was not refused. The others are
    /// shadowed. The holder is chosen before backoff is looked at, so an account waiting out
    /// a failure never hands the token to another account for a run and takes it back later.
    /// A next attempt recorded further ahead than any run sets one
    /// (`FailurePolicy.isBeyondAnyWait`) is not waited for.
    ///
    /// An instance is a server: URLs found to name one server (`names`) share one holder, and
    /// `preferred` is by server.
    static func entries(
        accounts: [AccountRecord], statuses: [Int64: AccountStatusRecord], preferred: [InstanceURL: Int64], names: ServerNames = .none,
        hasDeviceToken: Bool, honourBackoff: Bool, now: Date
    ) -> [Entry] {
        let candidates = accounts.filter { $0.state == .active && statuses[$0.id]?.condition != .authFailed }
        var holders: [InstanceURL: AccountRecord] = [:]
        for account in candidates {
            let server = names.server(of: account.instance)
            if holders[server] == nil || account.id == preferred[server] { holders[server] = account }
        }
        return accounts.map { account in
            let status = statuses[account.id] ?? AccountStatusRecord()
            // A refused token is never sent again, whatever the account wants: a release
            // would send it as surely as a hold.
            if status.condition == .authFailed {
                return .skip(account, status, account.state == .removing ? .removalTokenRefused : .tokenRefused)
            }
            // A wait further ahead than any run sets is a wrong clock's or a wrong server's:
            // honouring it could leave the account alone for years, so it is tried now.
            if honourBackoff, let next = status.nextRetryAt, next > now, !FailurePolicy.isBeyondAnyWait(next, from: now) {
                return .skip(account, status, .backingOff)
            }
            guard account.state == .active, hasDeviceToken, let holder = holders[names.server(of: account.instance)] else {
                return .reconcile(account, .release)
            }
            return .reconcile(account, holder.id == account.id ? .hold : .shadowed(by: holder.name))
        }
    }

    /// The entries once the keyring could not be read (`reason`): an account whose token it
    /// holds (`inKeyring`) waits for it.
    static func waiting(
        _ entries: [Entry], forKeyring reason: KeyringUnavailable, inKeyring: Set<Int64>, statuses: [Int64: AccountStatusRecord]
    ) -> [Entry] {
        entries.map { entry in
            guard case .reconcile(let account, _) = entry, inKeyring.contains(account.id) else { return entry }
            return .skip(account, statuses[account.id] ?? AccountStatusRecord(), .keyringUnavailable(reason))
        }
    }

    /// The entries once leases are taken: an account another live process holds is left to it.
    static func leaving(_ entries: [Entry], heldElsewhere: [Int64: LeaseRecord], statuses: [Int64: AccountStatusRecord]) -> [Entry] {
        entries.map { entry in
            guard case .reconcile(let account, _) = entry, let lease = heldElsewhere[account.id] else { return entry }
            return .skip(account, statuses[account.id] ?? AccountStatusRecord(), .heldElsewhere(pid: lease.holderPID, since: lease.takenAt))
        }
    }
}
