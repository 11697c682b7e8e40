import GitbayAPI
import GitbayState
import GitbaySupport
import Synchronization

extension SyncEngine {
    /// What a run does for an account being signed out once its pass has ended, every account
    /// on its own: its removal is finished when its deregistration went through (or its token
    /// was revoked after the step). None waits on another account's pass or server. Keeps
    /// what each did.
    final class FollowUps: Sendable {
        /// The accounts being removed as the run started.
        let removing: [Int64: AccountRecord]
        private let done = Mutex([Int64: FollowedUp]())

        init(removing: [Int64: AccountRecord]) {
            self.removing = removing
        }

        /// The account's follow-up is done.
        func end(_ followedUp: FollowedUp) {
            done.withLock { $0[followedUp.entry.outcome.accountID] = followedUp }
        }

        /// What the account's follow-up did, once done.
        func done(_ id: Int64) -> FollowedUp? {
            done.withLock { $0[id] }
        }
    }

    /// One account's follow-up: its entry after its removal.
    struct FollowedUp: Sendable {
        let entry: RunEntry

        /// The account's entry as the run ended with `final` for it: the removal's entry
        /// stands, with what the round learned after the pass (a token moved into the keyring
        /// as it began, a verdict it could not record).
        func entry(endingWith final: AccountOutcome) -> RunEntry {
            var entry = entry
            entry.outcome.tokenMove = final.tokenMove
            if final.action == .failed, entry.outcome.action != .failed {
                (entry.outcome.action, entry.outcome.failure) = (.failed, final.failure)
            }
            return entry
        }
    }

    /// Runs `reconcile` and, beside it, the removal of each account `handed` over as its pass
    /// ends, at most `options.concurrency` at once, each told through `progress` as it is
    /// done. Returns the outcomes.
    func followingUp(
        _ handed: AsyncStream<AccountOutcome>, _ followUps: FollowUps, telling progress: (@Sendable (RunProgress) -> Void)?,
        reconcile: @escaping @Sendable () async throws -> [AccountOutcome]
    ) async throws -> [AccountOutcome] {
        try await withThrowingTaskGroup(of: [AccountOutcome]?.self) { group in
            group.addTask { try await reconcile() }
            var outcomes: [AccountOutcome] = []
            // Follow-ups started and not yet taken back.
            var running = 0
            func take(_ piece: [AccountOutcome]?) {
                if let piece { outcomes = piece } else { running -= 1 }
            }
            for await outcome in handed {
                while running >= max(1, options.concurrency), let piece = try await group.next() { take(piece) }
                guard let account = followUps.removing[outcome.accountID] else { continue }
                running += 1
                group.addTask {
                    let entry = await followUp(outcome, removing: account)
                    followUps.end(FollowedUp(entry: entry))
                    // Told at once, not when the loop next looks: it may be waiting on another's pass.
                    progress?(.finished(entry))
                    return nil
                }
            }
            while let piece = try await group.next() { take(piece) }
            return outcomes
        }
    }

    /// One account's removal finished; one the store fails is that account's failure alone,
    /// held for the next run.
    private func followUp(_ outcome: AccountOutcome, removing account: AccountRecord) async -> RunEntry {
        do {
            return try await finishRemoval(account, after: outcome)
        } catch {
            logger.warning("account.removal-held", ["account.name": outcome.account, "error": String(describing: error)])
            return RunEntry(outcome: AccountRemoval.held(outcome, AccountFailure(error)), removing: account)
        }
    }

    private func finishRemoval(_ account: AccountRecord, after reconciled: AccountOutcome) async throws -> RunEntry {
        let removal = AccountRemoval.Ongoing(account, after: reconciled, force: false, inRun: true)
        let result = try await self.removal.carryOut(removal)
        return RunEntry(outcome: result?.outcome ?? removal.machine.outcome, removing: account, removal: result)
    }
}
