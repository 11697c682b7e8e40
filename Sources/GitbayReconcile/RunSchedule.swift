import FoundationEssentials
import GitbayState
import GitbaySupport

/// Which accounts a run reconciles, with what desire, and which it leaves alone: a pure
/// function of the accounts, their last outcomes and the user's choices.
enum RunSchedule {
    /// What a run does with one account.
    enum Entry: Sendable, Equatable {
        /// Reconcile it towards this desire.
        case reconcile(AccountRecord, Desire)
        /// Leave it alone this run, reporting its last condition.
        case skip(AccountRecord, AccountStatusRecord)

        var account: AccountRecord {
            switch self {
            case .reconcile(let account, _), .skip(let account, _): account
            }
        }
    }

    /// Every account's entry, in sign-in order. On an instance one account holds the device
    /// token (every gitbay keeps one row per token): the preferred one, else the earliest
    /// signed in, among the active accounts whose token was not refused. The others are
    /// shadowed. The holder is chosen before backoff is looked at, so an account waiting out
    /// a failure never hands the token to another account for a run and takes it back later.
    static func entries(
        accounts: [AccountRecord], statuses: [Int64: AccountStatusRecord], preferred: [InstanceURL: Int64],
        hasDeviceToken: Bool, honourBackoff: Bool, now: Date
    ) -> [Entry] {
        let candidates = accounts.filter { $0.state == .active && statuses[$0.id]?.condition != .authFailed }
        var holders: [InstanceURL: AccountRecord] = [:]
        for account in candidates where holders[account.instance] == nil || account.id == preferred[account.instance] {
            holders[account.instance] = account
        }
        return accounts.map { account in
            let status = statuses[account.id] ?? AccountStatusRecord()
            if account.state == .active, status.condition == .authFailed {
                return .skip(account, status)
            }
            if honourBackoff, let next = status.nextRetryAt, next > now {
                return .skip(account, status)
            }
            guard account.state == .active, hasDeviceToken, let holder = holders[account.instance] else {
                return .reconcile(account, .release)
            }
            return .reconcile(account, holder.id == account.id ? .hold : .shadowed(by: holder.name))
        }
    }
}
