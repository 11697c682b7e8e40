import GitbayAPI
import GitbayState
import GitbaySupport
import Synchronization

extension SyncEngine {
    /// What a run does for an account once its pass has ended, every account on its own: the
    /// removal of one being signed out is finished when its deregistration went through (or
    /// its token was revoked after the step), and the token of one near its expiry is renewed
    /// (`TokenRenewer`). None waits on another account's pass or server. Keeps what each did,
    /// and lets a later round of the run wait for the accounts it takes up again.
    final class FollowUps: Sendable {
        /// The accounts being removed as the run started.
        let removing: [Int64: AccountRecord]
        /// The accounts handed over: those being removed, and those whose token is due.
        let accounts: Set<Int64>
        /// The install marker, when a token is due.
        let marker: String?

        private struct State {
            var underWay: Set<Int64> = []
            var done: [Int64: FollowedUp] = [:]
            var waiting: [(accounts: Set<Int64>, resume: CheckedContinuation<Void, Never>)] = []
        }

        private let state = Mutex(State())

        init(removing: [Int64: AccountRecord], renewing: (accounts: Set<Int64>, marker: String)?) {
            self.removing = removing
            accounts = Set(removing.keys).union(renewing?.accounts ?? [])
            marker = renewing?.marker
        }

        /// The account's follow-up is under way from now.
        func begin(_ id: Int64) {
            state.withLock { _ = $0.underWay.insert(id) }
        }

        /// The account's follow-up is done: a later round waiting for it may start.
        func end(_ followedUp: FollowedUp) {
            let id = followedUp.entry.outcome.accountID
            let ready = state.withLock { state in
                state.underWay.remove(id)
                state.done[id] = followedUp
                let ready = state.waiting.filter { state.underWay.isDisjoint(with: $0.accounts) }
                state.waiting.removeAll { state.underWay.isDisjoint(with: $0.accounts) }
                return ready.map(\.resume)
            }
            for resume in ready { resume.resume() }
        }

        /// Returns once no follow-up of `ids` is under way.
        func settle(_ ids: Set<Int64>) async {
            await withCheckedContinuation { (resume: CheckedContinuation<Void, Never>) in
                let now = state.withLock { state in
                    guard !state.underWay.isDisjoint(with: ids) else { return true }
                    state.waiting.append((ids, resume))
                    return false
                }
                if now { resume.resume() }
            }
        }

        /// What the account's follow-up did, once done.
        func done(_ id: Int64) -> FollowedUp? {
            state.withLock { $0.done[id] }
        }
    }

    /// One account's follow-up: the outcome it was handed over with, and its entry after it.
    struct FollowedUp: Sendable {
        let handed: AccountOutcome
        let entry: RunEntry

        /// The account's entry as the run ended with `final` for it. A removal's entry stands,
        /// with what the round learned after the pass (a token moved into the keyring as it
        /// began, a verdict it could not record); a renewal's is the run's last outcome (a
        /// later round may have reconciled the account again) with what the renewal did.
        func entry(endingWith final: AccountOutcome) -> RunEntry {
            guard entry.removing == nil else {
                var entry = entry
                entry.outcome.tokenMove = final.tokenMove
                if final.action == .failed, entry.outcome.action != .failed {
                    (entry.outcome.action, entry.outcome.failure) = (.failed, final.failure)
                }
                return entry
            }
            var outcome = final
            outcome.tokenRenewal = entry.outcome.tokenRenewal
            outcome.requests += entry.outcome.requests - handed.requests
            if entry.outcome.condition == .authFailed, handed.condition != .authFailed {
                // The renewal found the token refused.
                (outcome.action, outcome.condition, outcome.failure) = (entry.outcome.action, .authFailed, entry.outcome.failure)
            }
            return RunEntry(outcome: outcome)
        }
    }

    /// Runs `reconcile` and, beside it, the follow-up of each account `handed` over as its
    /// pass ends, at most `options.concurrency` at once, each told through `progress` as it is
    /// done. Returns the outcomes.
    func followingUp(
        _ handed: AsyncStream<(AccountOutcome, Secret?)>, _ followUps: FollowUps, telling progress: (@Sendable (RunProgress) -> Void)?,
        reconcile: @escaping @Sendable () async throws -> [AccountOutcome]
    ) async throws -> [AccountOutcome] {
        let renewer = TokenRenewer(store: store, options: options, logger: logger)
        return try await withThrowingTaskGroup(of: [AccountOutcome]?.self) { group in
            group.addTask { try await reconcile() }
            var outcomes: [AccountOutcome] = []
            // Follow-ups started and not yet taken back.
            var running = 0
            func take(_ piece: [AccountOutcome]?) {
                if let piece { outcomes = piece } else { running -= 1 }
            }
            for await (outcome, token) in handed {
                while running >= max(1, options.concurrency), let piece = try await group.next() { take(piece) }
                running += 1
                let account = followUps.removing[outcome.accountID]
                group.addTask {
                    let entry = await followUp(outcome, token: token, removing: account, renewer: renewer, marker: followUps.marker)
                    followUps.end(FollowedUp(handed: outcome, entry: entry))
                    // Told at once, not when the loop next looks: it may be waiting on another's pass.
                    progress?(.finished(entry))
                    return nil
                }
            }
            while let piece = try await group.next() { take(piece) }
            return outcomes
        }
    }

    /// One account's follow-up: its removal finished, or its token renewed. A removal the
    /// store fails is that account's failure alone, held for the next run; a renewal that
    /// cannot read what is due is its renewal's failure, tried again by the next run.
    private func followUp(
        _ outcome: AccountOutcome, token: Secret?, removing account: AccountRecord?, renewer: TokenRenewer, marker: String?
    ) async -> RunEntry {
        guard let account else {
            guard let marker else { return RunEntry(outcome: outcome) }
            do {
                return RunEntry(outcome: try await renewer.renewed(outcome, token: token, marker: marker))
            } catch {
                logger.warning("token.renew-failed", ["account.name": outcome.account, "error": String(describing: error)])
                var failed = outcome
                failed.tokenRenewal = TokenRenewal()
                failed.tokenRenewal?.failure = AccountFailure(error)
                return RunEntry(outcome: failed)
            }
        }
        do {
            return try await finishRemoval(account, after: outcome)
        } catch {
            logger.warning("account.removal-held", ["account.name": outcome.account, "error": String(describing: error)])
            return RunEntry(outcome: AccountRemoval.held(outcome, AccountFailure(error)), removing: account)
        }
    }

    private func finishRemoval(_ account: AccountRecord, after reconciled: AccountOutcome) async throws -> RunEntry {
        var outcome = reconciled
        if outcome.condition == .authFailed, outcome.skipReason == nil {
            // Refused now: no later run sends the token again.
            outcome.skipReason = .removalTokenRefused
        }
        let deregistered = !outcome.isFailure && outcome.action != .skipped
        let revoked = try await AccountRemoval.revokedAfterStep(account, outcome, store)
        guard deregistered || revoked else { return RunEntry(outcome: outcome, removing: account) }
        let result = try await removal.complete(account, after: outcome, force: false)
        return RunEntry(outcome: outcome, removing: account, removal: result)
    }
}
