import GitbayState
import GitbaySupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Signs an account out: the pre-removal hook (deregister every row of ours through the
/// account's own client, then the `PreRemovalStep`: the agent's user hook, an app's own), and
/// only then the token and the records.
package struct AccountRemoval: Sendable {
    let reconciler: Reconciler
    let step: any PreRemovalStep
    /// Stop requests, which stop the step and leave the removal to a later run.
    let shutdown: ShutdownSignal

    package init(reconciler: Reconciler, step: any PreRemovalStep, shutdown: ShutdownSignal) {
        self.reconciler = reconciler
        self.step = step
        self.shutdown = shutdown
    }

    /// How a removal ended.
    package enum Result: Sendable, Equatable {
        /// Deregistered, hook passed, token and records deleted. `tokenWiped`: the token's
        /// bytes are gone from the files too (false: they leave at the next checkpoint).
        case removed(AccountOutcome, tokenWiped: Bool)
        /// Kept as `removing` with its token: the deregistration failed, or (`deregistered`)
        /// it went through and the hook failed.
        case kept(AccountOutcome, reason: String, deregistered: Bool)
        /// Deleted by force although the deregistration or (`deregistered`) the hook failed;
        /// these server rows of ours were left behind.
        case forced(AccountOutcome, rowsLeft: [Int], deregistered: Bool, tokenWiped: Bool)
        /// Left as `removing`: another process is reconciling the account and finishes it, or
        /// the next run does.
        case busy(AccountOutcome, pid: Int32)
        /// Kept as `removing` with its token: a stop request came while the hook ran (or before
        /// it started). `--force` does not override this: the user asked to stop.
        case interrupted(AccountOutcome, reason: String)
        /// Not removed: the account was signed in again (or paused, resumed) while the removal
        /// ran, and that later choice wins. The outcome is what the run did for it.
        case signedInAgain(AccountOutcome)
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
    /// Nothing is run or deleted once the account is no longer in the removal `account` was
    /// read in: a sign-in made meanwhile wins, whatever the interleaving.
    package func complete(_ account: AccountRecord, after outcome: AccountOutcome, force: Bool) async throws -> Result {
        let store = reconciler.store
        var outcome = outcome
        guard try await isStillRemoving(account) else { return .signedInAgain(try await stillSignedIn(account, outcome)) }
        var reason: String?
        var interrupted = false
        let deregistered = !(outcome.isFailure || outcome.action == .skipped)
        if !deregistered {
            reason = outcome.error ?? outcome.reason ?? "the server could not be reached"
        } else {
            do {
                try await step.run(for: account, shutdown: shutdown)
            } catch {
                reason = String(describing: error)
                interrupted = error is any PreRemovalInterruption
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
            // A refused token stays said: it is what keeps the removal from going on.
            if outcome.condition != .authFailed { outcome.condition = .removing }
            outcome.error = outcome.error ?? reason
            if interrupted { return .interrupted(outcome, reason: reason) }
            if !force { return .kept(outcome, reason: reason, deregistered: deregistered) }
        }
        let left = try await store.registrations(ofAccount: account.id).map(\.deviceID)
        let place = try await store.tokenPlaces()[account.id]
        switch try await store.deleteAccount(id: account.id, removalStartedAt: account.removalStartedAt) {
        case .notRemoving:
            return .signedInAgain(try await stillSignedIn(account, outcome))
        case .deleted(let wiped):
            await forgetKeyringItem(of: account, keptIn: place)
            outcome.action = .removed
            return reason == nil
                ? .removed(outcome, tokenWiped: wiped) : .forced(outcome, rowsLeft: left, deregistered: deregistered, tokenWiped: wiped)
        }
    }

    /// Once the account is deleted: the keyring's item of its token, when the keyring held it.
    private func forgetKeyringItem(of account: AccountRecord, keptIn place: TokenPlace?) async {
        if let reason = await reconciler.tokens.forget(account, keptIn: place) {
            reconciler.logger.warning("token.left-in-keyring", ["account.name": account.name, "reason": reason.description])
        }
    }

    /// True while the account is still in the removal it was read in.
    private func isStillRemoving(_ account: AccountRecord) async throws -> Bool {
        guard let now = try await reconciler.store.account(id: account.id) else { return false }
        return now.state == .removing && now.removalStartedAt == account.removalStartedAt
    }

    /// What the run reports for an account signed in again during its removal: what its pass
    /// did when the pass already followed the sign-in, else its stored condition as it stands.
    private func stillSignedIn(_ account: AccountRecord, _ outcome: AccountOutcome) async throws -> AccountOutcome {
        guard outcome.condition == .removing || outcome.action == .removed else { return outcome }
        let status = try await reconciler.store.status(ofAccount: account.id)
        return AccountOutcome(
            account: outcome.account, action: .skipped, condition: status.condition, requests: outcome.requests,
            writes: outcome.writes, skipReason: .signedInAgain)
    }
}
