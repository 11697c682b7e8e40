import GitbayKeyring
import GitbayState
import GitbaySupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Signs an account out: the pre-removal hook (deregister every row of ours through the
/// account's own client, then the `PreRemovalStep`: the agent's user hook, an app's own), the
/// API token revoked on the server when its name is known, and only then the token and the
/// records.
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
        /// Deregistered, step passed, token revoked (when its name is known), token and records
        /// deleted. `tokenWiped`: the token's bytes are gone from the files too (false: they
        /// leave at the next checkpoint). `token`: `.revoked`, or `.unnamed` when no name is
        /// known, and the token stays valid on the server.
        case removed(AccountOutcome, tokenWiped: Bool, token: TokenRevocation)
        /// Kept as `removing` with its token, for `reason`; runs retry it.
        case kept(AccountOutcome, reason: RemovalHold)
        /// Deleted by force although the removal was held for `reason`; these server rows of
        /// ours were left behind, and the token is as `token` says.
        case forced(AccountOutcome, rowsLeft: [Int], reason: RemovalHold, tokenWiped: Bool, token: TokenRevocation)
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
    /// The same, when the hook passed and the token could not be revoked on the server.
    package static let revocationFailedDetail =
        "this device is deregistered and the pre-remove hook passed; the API token is kept because it could not be revoked on the server"
    /// The same, when a stop cut the revocation short: whether the server revoked the token is not known.
    package static let revocationInterruptedDetail =
        "this device is deregistered and the pre-remove hook passed; the API token is kept because its revocation on the server was interrupted, so whether it is revoked is not known"

    /// The same, when the token was revoked by name and still works: the name was another's.
    package static let tokenStillValidDetail =
        "this device is deregistered and the pre-remove hook passed; the API token is kept because it still works after its name was revoked"

    /// Removes an account already marked `removing`. Holds the account's lease from the
    /// deregistration to the deletion, so that no run can add a row for it in between; when
    /// another process holds it, that process (or the next run) finishes the removal.
    package func finish(_ account: AccountRecord, force: Bool) async throws -> Result {
        let holder = reconciler.options.leaseHolder
        let grant = try await reconciler.store.takeLeases([account.id], holder: holder)
        if let lease = grant.heldElsewhere[account.id] {
            return .busy(AccountOutcome(account, action: .skipped, condition: .removing), pid: lease.holderPID)
        }
        let release = { [store = reconciler.store] in
            if grant.taken.contains(account.id) { try? await store.releaseLeases([account.id], holder: holder) }
        }
        do {
            let outcome =
                try await reconciler.reconcile(only: [account.id]).first
                ?? AccountOutcome(account, action: .failed, condition: .removing, failure: .local(.notReconciled))
            let result = try await complete(account, after: outcome, force: force)
            await release()
            return result
        } catch {
            await release()
            throw error
        }
    }

    /// Finishes a removal whose deregistration `outcome` is known (from this run's reconcile):
    /// the steps of its machine (`RemovalMachine`) carried out one after another.
    package func complete(_ account: AccountRecord, after outcome: AccountOutcome, force: Bool) async throws -> Result {
        guard let result = try await carryOut(Ongoing(account, after: outcome, force: force, inRun: false)) else {
            preconditionFailure("remove-account's removal left for a run")
        }
        return result
    }

    /// Carries `removal` out to its end, one step after another; nil when a run's removal was
    /// left for a later run. A stop cancels a revocation's request in flight.
    func carryOut(_ removal: Ongoing) async throws -> Result? {
        var removal = removal
        var effect = removal.machine.start()
        while true {
            let answer: RemovalMachine.Answer
            switch effect {
            case .finish(let last):
                return try await end(last, of: removal)
            case .revoke, .checkToken:
                guard let client = removal.client else { preconditionFailure("a request with no token read") }
                let request = effect
                answer = await cancelledAtStop { await self.request(request, with: client) }
            default:
                answer = try await carryOut(effect, of: &removal)
            }
            effect = removal.machine.take(answer, stopping: shutdown.phase != .running)
        }
    }

    /// `outcome` of a removal held by `failure`.
    /// A removal held back (kept, interrupted): a failure, decided here so every reader says so.
    static func held(_ outcome: AccountOutcome, _ failure: AccountFailure) -> AccountOutcome {
        var outcome = outcome
        outcome.action = .failed
        // A refused token stays said: it is what keeps the removal from going on.
        if outcome.condition != .authFailed { outcome.condition = .removing }
        outcome.failure = outcome.failure ?? failure
        return outcome
    }

    /// Records that the account is deregistered and still `removing`, for `detail`.
    func saveHeldStatus(_ account: AccountRecord, detail: String, error: String) async {
        let store = reconciler.store
        var status = (try? await store.status(ofAccount: account.id)) ?? AccountStatusRecord()
        status.condition = .removing
        status.detail = detail
        status.lastAttemptAt = reconciler.options.now()
        status.lastError = error
        status.nextRetryAt = nil
        try? await store.saveStatus(status, ofAccount: account.id)
    }

    /// True while the account is still in the removal it was read in.
    func isStillRemoving(_ account: AccountRecord) async throws -> Bool {
        guard let now = try await reconciler.store.account(id: account.id) else { return false }
        return now.state == .removing && now.removalStartedAt == account.removalStartedAt
    }

    /// What the run reports for an account signed in again during its removal: what its pass
    /// did when the pass already followed the sign-in, else its stored condition as it stands.
    func stillSignedIn(_ account: AccountRecord, _ outcome: AccountOutcome) async throws -> AccountOutcome {
        guard outcome.condition == .removing || outcome.action == .removed else { return outcome }
        let status = try await reconciler.store.status(ofAccount: account.id)
        return AccountOutcome(
            account, action: .skipped, condition: status.condition, requests: outcome.requests,
            writes: outcome.writes, skipReason: .signedInAgain)
    }
}
