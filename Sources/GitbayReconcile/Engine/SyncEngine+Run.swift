import GitbayAPI
import GitbayState
import GitbaySupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension SyncEngine {
    /// One account's part in a run: what its reconcile did, and, for an account being signed
    /// out whose deregistration went through, how its removal ended.
    package struct RunEntry: Sendable, Equatable {
        package var outcome: AccountOutcome
        /// The account, when it was being signed out as the run started.
        package var removing: AccountRecord?
        package var removal: AccountRemoval.Result?
    }

    /// Reconciles every account (as `options` says: honouring backoffs or not, how many at
    /// once), renewing an API token near its expiry right after its account's pass, and, for
    /// each account being signed out, finishing its removal right after its pass when its
    /// deregistration went through (`RunRemovals`): each account's next machine in the same
    /// round, none waiting on another's. `progress` is told as each account's pass starts and
    /// as each account is done (`RunProgress`).
    package func run(progress: (@Sendable (RunProgress) -> Void)? = nil) async throws -> [RunEntry] {
        // The accounts being removed as the run starts: a run that reconciles one finishes its removal.
        let removing = Dictionary(try await store.removingAccounts().map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        let removals = RunRemovals(removing: removing, removal: removal)
        let reconciler = reconciler(telling: progress, removals: removals, renewing: try await renewalDue())
        let entries = try await reconciler.reconcile().map { removals.entry($0) }
        await recordHistory(entries, written: reconciler.history.row)
        return entries
    }

    /// Records the run in the history, unless the row its round wrote already says it all
    /// (a steady run's: then the run makes no transaction for it). A failure to write it
    /// fails no account: the history only tells.
    private func recordHistory(_ entries: [RunEntry], written: RunHistoryRecord?) async {
        guard let start = options.history else { return }
        let unfinished = entries.filter { entry in
            switch entry.removal {
            case .kept, .interrupted: true
            default: false
            }
        }
        let run = RunHistoryRecord(
            start: start, finishedAt: options.now(), entries.map(\.outcome), interrupted: !options.mayStartMore(),
            alsoFailed: Set(unfinished.map(\.outcome.account)))
        if let written, written.saysTheSame(as: run) { return }
        do {
            try await store.recordRun(run)
        } catch {
            logger.warning("run.history.unrecorded", ["error": String(describing: error)])
        }
    }

    /// How signing an account out went: the removal's end, and the instance's other accounts
    /// reconciled when the device was deregistered (one may take the device token over).
    package struct Removed: Sendable, Equatable {
        package let result: AccountRemoval.Result
        package let handedOver: [AccountOutcome]
    }

    /// Signs an account out: deregisters this device through its own client, runs the removal
    /// step, and only then deletes its token and records (`AccountRemoval`). `force` deletes
    /// the token even when the deregistration or the step failed. `removed` is told how the
    /// removal ended before the instance's other accounts are reconciled.
    package func removeAccount(
        _ account: AccountRecord, force: Bool, removed: (@Sendable (AccountRemoval.Result) -> Void)? = nil
    ) async throws -> Removed {
        try await store.setState(.removing, ofAccount: account.id, now: options.now())
        let removing = try await store.account(id: account.id) ?? account
        let result = try await removal.finish(removing, force: force)
        removed?(result)
        guard result.deregistered else { return Removed(result: result, handedOver: []) }
        return Removed(result: result, handedOver: try await reconcileServer(of: account.instance, activeOnly: true))
    }
}

extension RunRemovals {
    /// The run's entry of the account whose outcome is `outcome`.
    func entry(_ outcome: AccountOutcome) -> SyncEngine.RunEntry {
        SyncEngine.RunEntry(outcome: outcome, removing: removing[outcome.accountID], removal: result(of: outcome.accountID))
    }
}

extension AccountRemoval.Result {
    /// The account's outcome, as the removal left it.
    package var outcome: AccountOutcome {
        switch self {
        case .removed(let outcome, _, _), .forced(let outcome, _, _, _, _), .busy(let outcome, _), .interrupted(let outcome, _),
            .kept(let outcome, _), .signedInAgain(let outcome):
            outcome
        }
    }

    /// Whether this device's rows for the account are gone from the server, so that another
    /// account of the instance may take the device token over.
    package var deregistered: Bool {
        switch self {
        case .removed: true
        case .forced(_, _, let reason, _, _), .kept(_, let reason): reason.deregistered
        case .busy, .interrupted, .signedInAgain: false
        }
    }
}
