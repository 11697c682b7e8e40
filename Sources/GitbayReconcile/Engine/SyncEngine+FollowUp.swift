import GitbayAPI
import GitbayState
import GitbaySupport

extension SyncEngine {
    /// What the run does for each account once the passes are done, every account on its own:
    /// the removal of one being signed out is finished when its deregistration went through
    /// (or its token was revoked after the step), and the token of one near its expiry is
    /// renewed (`TokenRenewer`). None waits on another account's server: they run side by
    /// side, at most `options.concurrency` at once, and each account in `held` is told
    /// through `progress` as its own is done. The entries keep the order of `outcomes`.
    func followUp(
        _ outcomes: [AccountOutcome], removing: [Int64: AccountRecord], tokens: [Int64: Secret],
        telling progress: (@Sendable (RunProgress) -> Void)?, held: Set<Int64>
    ) async throws -> [RunEntry] {
        let renewer = TokenRenewer(store: store, options: options, logger: logger)
        let due = try await renewer.renewals(after: outcomes, tokens: tokens)
        var entries = outcomes.map { RunEntry(outcome: $0, removing: removing[$0.accountID]) }
        let work = entries.indices.filter { entries[$0].removing != nil || due?.accounts[entries[$0].outcome.accountID] != nil }
        if let progress {
            let waiting = Set(work)
            for index in entries.indices where !waiting.contains(index) && held.contains(entries[index].outcome.accountID) {
                progress(.finished(entries[index]))
            }
        }
        await withTaskGroup(of: (Int, RunEntry).self) { group in
            var next = work.startIndex
            while next < work.endIndex, next - work.startIndex < max(1, options.concurrency) {
                let (index, entry) = (work[next], entries[work[next]])
                group.addTask { (index, await followUp(entry, renewer: renewer, due: due)) }
                next += 1
            }
            while let (index, entry) = await group.next() {
                entries[index] = entry
                if let progress, held.contains(entry.outcome.accountID) { progress(.finished(entry)) }
                guard next < work.endIndex else { continue }
                let (waiting, entry) = (work[next], entries[work[next]])
                group.addTask { (waiting, await followUp(entry, renewer: renewer, due: due)) }
                next += 1
            }
        }
        return entries
    }

    /// One account's follow-up: its removal finished, or its token renewed. A removal the
    /// store fails is that account's failure alone, held for the next run; the others go on.
    private func followUp(_ entry: RunEntry, renewer: TokenRenewer, due: TokenRenewer.Due?) async -> RunEntry {
        do {
            return try await followUpThrowing(entry, renewer: renewer, due: due)
        } catch {
            logger.warning("account.removal-held", ["account.name": entry.outcome.account, "error": String(describing: error)])
            return RunEntry(outcome: AccountRemoval.held(entry.outcome, AccountFailure(error)), removing: entry.removing)
        }
    }

    private func followUpThrowing(_ entry: RunEntry, renewer: TokenRenewer, due: TokenRenewer.Due?) async throws -> RunEntry {
        guard let account = entry.removing else {
            guard let due else { return entry }
            return RunEntry(outcome: await renewer.renew(entry.outcome, due))
        }
        var outcome = entry.outcome
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
