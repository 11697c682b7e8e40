import FoundationEssentials
import GitbayReconcile
import GitbayState
import GitbaySupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension CommandRunner {
    /// What an unattended run (or a cycle of `run --every`) did, to be recorded for `doctor`.
    func unattendedRun(
        _ trigger: UnattendedRunRecord.Trigger, startedAt: Date, _ outcomes: [AccountOutcome], interrupted: Bool, period: Duration?
    ) -> UnattendedRunRecord {
        let failed = outcomes.filter(\.isFailure).map(\.account)
        return UnattendedRunRecord(
            trigger: trigger, startedAt: startedAt, finishedAt: context.now(),
            result: interrupted ? .interrupted : failed.isEmpty ? .ok : .failed, accounts: outcomes.count, failedAccounts: failed,
            waiting: outcomes.filter { $0.action == .skipped && $0.nextRetryAt != nil }.count, period: period,
            pid: getpid()
        )
    }

    /// One pass: reconcile, then delete the accounts whose removal's deregistration succeeded.
    func reconcileOnce(
        _ store: StateStore, concurrency: Int?, honourBackoff: Bool, ceiling: Duration? = nil,
        mayStartMore: @escaping @Sendable () -> Bool = { true }
    ) async throws -> [AccountOutcome] {
        // The accounts being removed as the run starts: a run that reconciles one finishes its removal.
        let removing = Dictionary(try await store.removingAccounts().map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        var outcomes = try await reconciler(
            store, concurrency: concurrency, honourBackoff: honourBackoff, ceiling: ceiling, mayStartMore: mayStartMore
        ).reconcile()
        let removal = removal(store)
        for (index, outcome) in outcomes.enumerated() {
            guard let account = removing[outcome.account] else { continue }
            if outcome.condition == .authFailed, outcome.skipReason == nil {
                // Refused now: no later run sends the token again, so say what ends it.
                outcomes[index].error = "\(account.name): \(RunSchedule.refusedRemoval(account))"
                outcomes[index].skipReason = .removalTokenRefused
            }
            guard !outcome.isFailure, outcome.action != .skipped else { continue }
            switch try await removal.complete(account, after: outcome, force: false) {
            case .removed(var done, let wiped), .forced(var done, _, _, let wiped):
                if !wiped { done.reason = Self.tokenBytesLinger }
                outcomes[index] = done
            case .signedInAgain(let current):
                outcomes[index] = current
            case .busy(var kept, _):
                kept.action = .skipped
                kept.reason =
                    "another gitbay-sync is reconciling it and finishes its removal (or, if it stops first, the next `gitbay-sync run` does)"
                outcomes[index] = kept
            case .kept(var kept, let reason, _):
                // Only the hook can fail here: the deregistration went through.
                kept.action = .failed
                kept.error =
                    "\(account.name): removal not finished: this device is deregistered, but \(Self.sentence(reason)); it stays `removing` with its API token. Fix the hook (`gitbay-sync run` runs it again), or `gitbay-sync remove-account \(account.name) --force` deletes the token now"
                outcomes[index] = kept
            case .interrupted(var kept, let reason):
                kept.action = .failed
                kept.error =
                    "\(account.name): removal not finished: \(reason); it stays `removing` with its API token, and the next `gitbay-sync run` retries the removal"
                outcomes[index] = kept
            }
        }
        return outcomes
    }
}
