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
            switch reason {
            case .removalTokenRefused:
                let reason = refusedRemoval(account)
                return AccountOutcome(
                    account: account.name, action: .skipped, condition: status.condition, error: "\(account.name): \(reason)",
                    reason: reason)
            case .tokenRefused:
                return AccountOutcome(
                    account: account.name, action: .skipped, condition: status.condition, error: status.lastError,
                    reason: "the API token was refused; sign in again with `gitbay-sync login \(account.instance)`"
                )
            case .backingOff:
                return AccountOutcome(
                    account: account.name, action: .skipped, condition: status.condition, error: status.lastError,
                    reason: RunSchedule.waitingReason(status), nextRetryAt: status.nextRetryAt, nextRetryReason: status.nextRetryReason
                )
            case .heldElsewhere(let pid, let since):
                return AccountOutcome(
                    account: account.name, action: .skipped, condition: status.condition,
                    reason: "another gitbay-sync (pid \(pid)) is reconciling it since \(Timestamp.format(since)); it picks up any change"
                )
            }
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

    /// The entries once leases are taken: an account another live process holds is left to it.
    static func leaving(_ entries: [Entry], heldElsewhere: [Int64: LeaseRecord], statuses: [Int64: AccountStatusRecord]) -> [Entry] {
        entries.map { entry in
            guard case .reconcile(let account, _) = entry, let lease = heldElsewhere[account.id] else { return entry }
            return .skip(account, statuses[account.id] ?? AccountStatusRecord(), .heldElsewhere(pid: lease.holderPID, since: lease.takenAt))
        }
    }

    /// Why the removal of an account whose API token was refused cannot go on, and the ways out.
    package static func refusedRemoval(_ account: AccountRecord) -> String {
        "its removal cannot go on: the API token was refused, so this device's rows on \(account.instance) cannot be removed with it, and it is not sent again. Sign in again with `gitbay-sync login \(account.instance)` and remove it again, or `gitbay-sync remove-account \(account.name) --force` deletes it now (this device's rows stay on the server and may keep pushing here)"
    }

    /// Why an account is left alone this run: until when, why, and how to try it anyway.
    static func waitingReason(_ status: AccountStatusRecord) -> String {
        let until = status.nextRetryAt.map { " until \(Timestamp.format($0))" } ?? ""
        let why = status.nextRetryReason.map { ": \($0.explanation)" } ?? ""
        return "waiting out a backoff\(until)\(why); `gitbay-sync run --now` tries it now"
    }
}
