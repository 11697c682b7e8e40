import GitbayReconcile
import GitbayState
import GitbaySupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension CommandRunner {
    /// What an unattended run (or a cycle of `run --every`) did, to be recorded for `doctor`.
    func unattendedRun(
        _ trigger: UnattendedRunRecord.Trigger, startedAt: Date, _ outcomes: [SaidOutcome], interrupted: Bool, period: Duration?
    ) -> UnattendedRunRecord {
        let failed = outcomes.filter { $0.isFailure && !$0.stopped }.map(\.account)
        let unchecked = outcomes.filter { $0.unchecked != nil }.map(\.account)
        return UnattendedRunRecord(
            trigger: trigger, startedAt: startedAt, finishedAt: context.now(),
            result: interrupted ? .interrupted : !failed.isEmpty ? .failed : unchecked.isEmpty ? .ok : .unchecked, accounts: outcomes.count,
            failedAccounts: failed, waiting: outcomes.filter { $0.action == .skipped && $0.nextRetryAt != nil }.count, period: period,
            pid: getpid(), uncheckedAccounts: unchecked
        )
    }

    /// What started a one-shot run, for the run history: `run --unattended` is the service's,
    /// or its timer's when systemd says a timer started it (`TRIGGER_UNIT`, systemd 250 on).
    func historyTrigger(unattended: Bool) -> RunHistoryRecord.Trigger {
        guard unattended else { return .run }
        return (context.environment["TRIGGER_UNIT"] ?? "").isEmpty ? .service : .timer
    }

    /// The run history's name for this run, started now by `trigger`.
    private func historyStart(_ trigger: RunHistoryRecord.Trigger) -> RunHistoryRecord.Start {
        RunHistoryRecord.Start(trigger: trigger, startedAt: context.now(), pid: getpid())
    }

    /// One pass: reconcile, then delete the accounts whose removal's deregistration succeeded;
    /// recorded in the run history as `history` when given.
    func reconcileOnce(
        _ store: StateStore, concurrency: Int?, honourBackoff: Bool, ceiling: Duration? = nil,
        mayStartMore: @escaping @Sendable () -> Bool = { true }, stopNow: (@Sendable () async -> Void)? = nil,
        history: RunHistoryRecord.Trigger? = nil
    ) async throws -> [SaidOutcome] {
        let engine = engine(
            store, concurrency: concurrency, honourBackoff: honourBackoff, ceiling: ceiling, mayStartMore: mayStartMore, stopNow: stopNow,
            history: history.map(historyStart))
        let entries = try await engine.run()
        return entries.map { Self.said($0, now: context.now()) }
    }

    /// A one-shot run's pass: `reconcileOnce` that stops at once when `stopNow` returns and
    /// tells `progress` as it goes; the entries as the engine returns them.
    func reconcileEntries(
        _ store: StateStore, concurrency: Int?, honourBackoff: Bool, mayStartMore: @escaping @Sendable () -> Bool,
        stopNow: @escaping @Sendable () async -> Void, history: RunHistoryRecord.Trigger? = nil,
        progress: @escaping @Sendable (SyncEngine.RunProgress) -> Void
    ) async throws -> [SyncEngine.RunEntry] {
        let engine = engine(
            store, concurrency: concurrency, honourBackoff: honourBackoff, mayStartMore: mayStartMore, stopNow: stopNow,
            history: history.map(historyStart))
        return try await engine.run(progress: progress)
    }

    /// A run's entry as the command line reports it: a removal's end said in its outcome, and
    /// a refused token's sign-in command for the instance and SSH destination `accounts` know.
    static func said(_ entry: SyncEngine.RunEntry, now: Date) -> SaidOutcome {
        // A removal refused by this run: no later run sends the token again, so it says what ends it.
        var outcome = SaidOutcome(entry.outcome)
        if let failure = outcome.failure?.server {
            outcome.error = FailureText.said(failure, instance: outcome.instance, ssh: outcome.sshDestination)
        }
        outcome = SkipReasonText.worded(outcome, now: now)
        let name = outcome.account
        switch entry.removal {
        case nil:
            return RemovalText.renewal(outcome)
        case .removed(let removed, let wiped, let token), .forced(let removed, _, _, let wiped, let token):
            var done = SaidOutcome(removed)
            let lingering = wiped ? nil : tokenBytesLinger
            let stillValid = entry.removing.flatMap { RemovalText.stillValid(token, of: $0) }
            let said = [lingering, stillValid].compactMap { $0 }
            if !said.isEmpty { done.reason = said.joined(separator: "; ") }
            return done
        case .signedInAgain(let current):
            return SkipReasonText.worded(SaidOutcome(current), now: now)
        case .busy(let busy, _):
            var kept = SaidOutcome(busy)
            kept.reason = "another gitbay-sync is reconciling it and finishes its removal (or, if it stops first, the next `gitbay-sync run` does)"
            return kept
        case .kept(let held, .stepFailed(let detail)):
            var kept = SaidOutcome(held)
            kept.error =
                "\(name): removal not finished: this device is deregistered, but \(sentence(detail)); it stays `removing` with its API token. Fix the hook (`gitbay-sync run` runs it again), or `\(ShellWords.gitbaySync("remove-account", name, "--force"))` deletes the token now"
            return kept
        case .kept(let held, let hold):
            var kept = SaidOutcome(held)
            kept.error =
                "\(name): removal not finished: \(RemovalText.held(hold)); it stays `removing` with its API token, and the next `gitbay-sync run` retries the removal; \(RemovalText.wayOut(hold, account: name))"
            return kept
        case .interrupted(let held, let reason):
            var kept = SaidOutcome(held)
            kept.error =
                "\(name): removal not finished: \(reason); it stays `removing` with its API token, and the next `gitbay-sync run` retries the removal"
            return kept
        }
    }
}
