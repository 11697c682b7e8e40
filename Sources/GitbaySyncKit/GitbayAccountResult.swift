import GitbayReconcile

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What a run (or a change that reconciled) did for one account, keyed by the account's id:
/// the engine's own result, exposed unchanged. Whether it succeeded is the engine's verdict,
/// the same the agent's `run --json` says as `ok`.
public struct GitbayAccountResult: Sendable, Equatable, Identifiable {
    /// The account's id in the state database (`GitbayAccount.id`).
    public let id: Int64
    /// `user@host[:port]`.
    public let name: String
    /// The server's URL, e.g. `https://gitbay.org`.
    public let instance: String
    /// Where the server serves SSH, when one was given.
    public let sshDestination: String?
    public let action: GitbayAction
    public let condition: GitbayCondition
    /// The server's row that holds this device's token for the account, when there is one.
    public let deviceID: Int?
    /// The account holding the device token when this one is shadowed.
    public let shadowedBy: String?
    /// What failed; for a skipped account, what failed when it was last tried.
    public let failure: GitbayFailure?
    /// Why the run left the account alone, when it did.
    public let skipReason: GitbaySkipReason?
    /// Why the run could not check the account, when it could not: not a success.
    public let notChecked: GitbayNotCheckedReason?
    /// When the account is tried again after a failure (nil: at the next run).
    public let nextRetryAt: Date?
    /// Why it waits until `nextRetryAt`.
    public let retryReason: GitbayRetryReason?
    /// How its sign-out ended, for an account being signed out that the run finished or held.
    public let removal: GitbayRemoval?
    /// What the run did to its API token, when it did anything.
    public let tokenRenewal: GitbayTokenRenewal?
    /// The work was stopped while the account was in flight: nothing of it was recorded.
    public let stopped: Bool
    /// HTTP requests made for the account, retries included, and the writes among them.
    public let requests: Int
    public let writes: Int
    /// The run did not do its job for the account: it failed now, or waits for a person
    /// (`authFailed`, `denied`, `pushDisabled`).
    public let failed: Bool
    /// The condition waits for a person, not for time: a new API token, a full-scope one, a
    /// server that sends pushes.
    public let needsAttention: Bool

    /// The account is left as it should be: not failed, and checked.
    public var succeeded: Bool { !failed && notChecked == nil }

    init(_ outcome: AccountOutcome, removal: AccountRemoval.Result? = nil) {
        id = outcome.accountID
        name = outcome.account
        instance = outcome.instance.description
        sshDestination = outcome.sshDestination
        action = GitbayAction(outcome.action)
        condition = GitbayCondition(outcome.condition)
        deviceID = outcome.deviceID
        shadowedBy = outcome.shadowedBy
        failure = outcome.failure.map(GitbayFailure.init)
        skipReason = outcome.skipReason.map(GitbaySkipReason.init)
        notChecked = outcome.unchecked.map(GitbayNotCheckedReason.init)
        nextRetryAt = outcome.nextRetryAt
        retryReason = outcome.nextRetryReason.map(GitbayRetryReason.init)
        self.removal = removal.map(GitbayRemoval.init)
        tokenRenewal = outcome.tokenRenewal.map(GitbayTokenRenewal.init)
        stopped = outcome.stopped
        requests = outcome.requests
        writes = outcome.writes
        failed = outcome.isFailure
        needsAttention = outcome.condition.needsAttention
    }

    /// A run's entry: the removal's outcome when the run finished or held a sign-out.
    init(_ entry: SyncEngine.RunEntry) {
        self.init(entry.removal.map(\.outcome) ?? entry.outcome, removal: entry.removal)
    }
}
