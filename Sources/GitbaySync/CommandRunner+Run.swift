import FoundationEssentials
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import GitbayReconcile
import GitbayState
import GitbaySupport

extension CommandRunner {
    /// `run`: one reconcile of every account, then finish removals that got through.
    ///
    /// Accounts waiting out a backoff are left alone unless `now`. The database must exist: a
    /// run never creates one, so a service pointed at the wrong path fails (exit 66) instead of
    /// keeping an empty database of its own. `unattended` records the run for `doctor`.
    func run(every: Duration?, concurrency: Int?, now: Bool = false, unattended: Bool = false) async throws -> ExitCode {
        if let every { return try await runEvery(every, concurrency: concurrency ?? 8) }
        let startedAt = context.now()
        let store = try await openExistingStore()
        let outcomes = try await reconcileOnce(store, concurrency: concurrency ?? 8, honourBackoff: !now)
        if global.json {
            printJSON(.object([
                ("ok", .bool(!outcomes.contains(where: \.isFailure))),
                ("accounts", .array(outcomes.map(\.json))),
            ]))
        } else if outcomes.isEmpty {
            context.console.out(journalOut.line(.info, "No accounts. Sign in with `gitbay-sync login <instance-url>`."))
        }
        let code = report(outcomes)
        // Only a running pre-remove hook takes a stop request: the removals it left wait for
        // the next run.
        let interrupted = context.shutdown.phase != .running
        if unattended {
            try? await store.recordUnattendedRun(unattendedRun(.service, startedAt: startedAt, outcomes, interrupted: interrupted, period: nil))
        }
        guard !interrupted else {
            context.console.err(journalErr.line(.error, "Error: interrupted; the accounts not removed yet stay `removing` with their API tokens, and runs retry their removal (so does the timer, if installed)."))
            return .unavailable
        }
        return code
    }

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
        _ store: StateStore, concurrency: Int, honourBackoff: Bool, ceiling: Duration = .seconds(3600),
        mayStartMore: @escaping @Sendable () -> Bool = { true }
    ) async throws -> [AccountOutcome] {
        let accounts = try await store.accounts()
        var outcomes = try await reconciler(
            store, concurrency: concurrency, honourBackoff: honourBackoff, ceiling: ceiling, mayStartMore: mayStartMore
        ).reconcile()
        let removal = removal(store)
        for (index, outcome) in outcomes.enumerated() {
            guard let account = accounts.first(where: { $0.name == outcome.account }), account.state == .removing,
                  !outcome.isFailure, outcome.action != .skipped
            else { continue }
            switch try await removal.complete(account, after: outcome, force: false) {
            case .removed(let done), .forced(let done, _, _):
                outcomes[index] = done
            case .busy(var kept, _):
                kept.action = .skipped
                kept.reason = "another gitbay-sync is reconciling it and finishes its removal (or, if it stops first, the next `gitbay-sync run` does)"
                outcomes[index] = kept
            case .kept(var kept, let reason, _):
                // Only the hook can fail here: the deregistration went through.
                kept.action = .failed
                kept.error = "\(account.name): removal not finished: this device is deregistered, but \(Self.sentence(reason)); it stays `removing` with its API token. Fix the hook (`gitbay-sync run` runs it again), or `gitbay-sync remove-account \(account.name) --force` deletes the token now"
                outcomes[index] = kept
            case .interrupted(var kept, let reason):
                kept.action = .failed
                kept.error = "\(account.name): removal not finished: \(reason); it stays `removing` with its API token, and the next `gitbay-sync run` retries the removal"
                outcomes[index] = kept
            }
        }
        return outcomes
    }

    /// `status`.
    func status() async throws -> ExitCode {
        let store = try await openExistingStore()
        let device = try await store.device()
        let rows = try await accountRows(store)
        if global.json {
            printJSON(.object([
                ("database", .string(location.databasePath)),
                ("device", deviceJSON(device)),
                ("accounts", .array(rows.map(\.json))),
            ]))
            return .success
        }
        context.console.out("database: \(location.databasePath)")
        context.console.out("device: \(escaped: device.label), token " + (device.token.map { "\($0.prefix())…" } ?? "not set (set one with `gitbay-sync device set-token`)"))
        if rows.isEmpty {
            context.console.out("accounts: none (sign in with `gitbay-sync login <instance-url>`)")
        }
        for row in rows {
            context.console.out(row.text)
            for line in row.details(now: context.now()) { context.console.out(line) }
        }
        return .success
    }
}
