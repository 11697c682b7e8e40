import FoundationEssentials
import GitbayState
import GitbaySupport

/// Signs an account out: the pre-removal hook (deregister every row of ours through the
/// account's own client, then the user's hook), and only then the token and the records.
package struct AccountRemoval: Sendable {
    let reconciler: Reconciler
    let hook: PreRemovalHook
    let environment: [String: String]
    /// Stop requests, which stop the hook and leave the removal to a later run.
    let shutdown: ShutdownSignal

    package init(reconciler: Reconciler, hook: PreRemovalHook, environment: [String: String], shutdown: ShutdownSignal) {
        self.reconciler = reconciler
        self.hook = hook
        self.environment = environment
        self.shutdown = shutdown
    }

    /// How a removal ended.
    package enum Result: Sendable, Equatable {
        /// Deregistered, hook passed, token and records deleted.
        case removed(AccountOutcome)
        /// Kept as `removing` with its token: the deregistration failed, or (`deregistered`)
        /// it went through and the hook failed.
        case kept(AccountOutcome, reason: String, deregistered: Bool)
        /// Deleted by force although the deregistration or (`deregistered`) the hook failed;
        /// these server rows of ours were left behind.
        case forced(AccountOutcome, rowsLeft: [Int], deregistered: Bool)
        /// Left as `removing`: another process is reconciling the account and finishes it, or
        /// the next run does.
        case busy(AccountOutcome, pid: Int32)
        /// Kept as `removing` with its token: a stop request came while the hook ran (or before
        /// it started). `--force` does not override this: the user asked to stop.
        case interrupted(AccountOutcome, reason: String)
    }

    /// The status detail of an account whose device is deregistered but whose pre-remove hook
    /// failed: the token is kept until the hook passes (or `--force`).
    package static let hookFailedDetail = "this device is deregistered; the API token is kept because the pre-remove hook failed"
    /// The same, when the hook was interrupted (or a stop came before it started).
    package static let interruptedDetail =
        "this device is deregistered; the API token is kept because the removal was interrupted at the pre-remove hook"

    /// Removes an account already marked `removing`. Holds the account's lease from the
    /// deregistration to the deletion, so that no run can add a row for it in between; when
    /// another process holds it, that process (or the next run) finishes the removal.
    package func finish(_ account: AccountRecord, force: Bool) async throws -> Result {
        let holder = reconciler.options.leaseHolder
        let grant = try await reconciler.store.takeLeases([account.id], holder: holder)
        if let lease = grant.heldElsewhere[account.id] {
            return .busy(AccountOutcome(account: account.name, action: .skipped, condition: .removing), pid: lease.holderPID)
        }
        let release = { [store = reconciler.store] in
            if grant.taken.contains(account.id) { try? await store.releaseLeases([account.id], holder: holder) }
        }
        do {
            let outcome =
                try await reconciler.reconcile(only: [account.id]).first
                ?? AccountOutcome(account: account.name, action: .failed, condition: .removing, error: "not reconciled")
            let result = try await complete(account, after: outcome, force: force)
            await release()
            return result
        } catch {
            await release()
            throw error
        }
    }

    /// Finishes a removal whose deregistration `outcome` is known (from this run's reconcile).
    package func complete(_ account: AccountRecord, after outcome: AccountOutcome, force: Bool) async throws -> Result {
        let store = reconciler.store
        var outcome = outcome
        var reason: String?
        var interrupted = false
        let deregistered = !(outcome.isFailure || outcome.action == .skipped)
        if !deregistered {
            reason = outcome.error ?? outcome.reason ?? "the server could not be reached"
        } else {
            do {
                try await hook.run(for: account, baseEnvironment: environment, shutdown: shutdown)
            } catch {
                reason = String(describing: error)
                interrupted = error is PreRemovalHook.Interrupted
                // The deregistration stands: say so, so that no one reads the account as
                // still registered.
                var status = (try? await store.status(ofAccount: account.id)) ?? AccountStatusRecord()
                status.condition = .removing
                status.detail = interrupted ? Self.interruptedDetail : Self.hookFailedDetail
                status.lastAttemptAt = reconciler.options.now()
                status.lastError = reason
                status.nextRetryAt = nil
                try? await store.saveStatus(status, ofAccount: account.id)
            }
        }
        if let reason {
            outcome.condition = .removing
            outcome.error = outcome.error ?? reason
            if interrupted { return .interrupted(outcome, reason: reason) }
            if !force { return .kept(outcome, reason: reason, deregistered: deregistered) }
        }
        let left = try await store.registrations(ofAccount: account.id).map(\.deviceID)
        try await store.deleteAccount(id: account.id)
        outcome.action = .removed
        return reason == nil ? .removed(outcome) : .forced(outcome, rowsLeft: left, deregistered: deregistered)
    }
}
