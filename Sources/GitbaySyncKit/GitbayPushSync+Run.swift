import GitbayReconcile
import GitbayState

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What a run with a time budget finished, and what it did not.
public struct GitbayRun: Sendable, Equatable {
    /// The accounts the run finished, each with its result.
    public let finished: [GitbayAccountResult]
    /// The accounts it did not finish: stopped in flight when the budget ran out or a
    /// suspension came, or never started. The next run takes them up.
    public let unfinished: [GitbayAccount]

    /// True when every account was finished.
    public var isComplete: Bool { unfinished.isEmpty }
}

extension GitbayPushSync {
    /// Brings every account in line with what it should have, and finishes the sign-outs whose
    /// deregistration now goes through. Accounts waiting out a server's backoff are tried too.
    /// A cancelled task throws `CancellationError` (what was done before stays recorded); a
    /// suspension meanwhile throws `GitbaySuspended`.
    public func reconcile() async throws -> [GitbayAccountResult] {
        let run = try await reconcile(budget: nil)
        if !run.isComplete { throw GitbaySuspended() }
        return run.finished
    }

    /// Reconciles as `reconcile()` does, within `budget` (a background refresh's time, say):
    /// once it is spent, no account starts and those in flight are stopped, recording nothing.
    /// Says what finished and what did not. A cancelled task throws `CancellationError`.
    public func reconcile(budget: Duration?) async throws -> GitbayRun {
        try await withEngine { engine in
            let clock = ContinuousClock()
            let end = budget.map { clock.now.advanced(by: $0) }
            let mayGoOn = { @Sendable [lifecycle] in !lifecycle.isStopping && !Task.isCancelled && end.map { clock.now < $0 } ?? true }
            let entries: [SyncEngine.RunEntry]
            do {
                entries = try await runTelling(bounded(engine, until: end, clock: clock, mayGoOn: mayGoOn))
            } catch  where Task.isCancelled {
                throw CancellationError()
            }
            try Task.checkCancellation()
            let results = entries.map(GitbayAccountResult.init)
            let finished = results.filter { !$0.stopped }
            var unfinished = try await accounts(ids: results.filter(\.stopped).map(\.id), engine)
            if !mayGoOn() {
                // Stopped early: the accounts still signed in that never started did not finish either.
                let seen = Set(results.map(\.id))
                unfinished += try await engine.store.accounts().filter { !seen.contains($0.id) }.map(GitbayAccount.init)
            }
            return GitbayRun(finished: finished, unfinished: unfinished)
        }
    }

    /// `engine`'s run, the change streams told as each account is done (when any listens):
    /// a long run shows as it goes.
    private func runTelling(_ engine: SyncEngine) async throws -> [SyncEngine.RunEntry] {
        guard !broadcast.isEmpty else { return try await engine.run() }
        let (done, tell) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        async let told: Void = { for await _ in done { await publish(engine) } }()
        defer { tell.finish() }
        let entries = try await engine.run { progress in
            if case .finished = progress { tell.yield() }
        }
        tell.finish()
        await told
        return entries
    }

    /// The accounts of `ids` still signed in.
    private func accounts(ids: [Int64], _ engine: SyncEngine) async throws -> [GitbayAccount] {
        var accounts: [GitbayAccount] = []
        for id in ids { if let record = try await engine.store.account(id: id) { accounts.append(GitbayAccount(record)) } }
        return accounts
    }

    /// `engine` that starts no account once `mayGoOn` says no (the budget ending at `end` is
    /// spent, a suspension asks it to stop, its task is cancelled), and then stops the
    /// accounts in flight.
    private func bounded(
        _ engine: SyncEngine, until end: ContinuousClock.Instant?, clock: ContinuousClock, mayGoOn: @escaping @Sendable () -> Bool
    ) -> SyncEngine {
        var options = engine.options
        options.mayStartMore = mayGoOn
        options.stopNow = { [lifecycle] in
            await withTaskGroup(of: Void.self) { group in
                group.addTask { await lifecycle.stopRequested() }
                if let end { group.addTask { try? await Task.sleep(until: end, clock: clock) } }
                await group.next()
                group.cancelAll()
            }
        }
        return SyncEngine(store: engine.store, options: options, logger: engine.logger, removalStep: engine.removalStep, shutdown: engine.shutdown)
    }

    /// Stops the work in flight (each account stopped records nothing, and the next run takes
    /// it up), waits for it to end, checkpoints the database and closes it: call it as the app
    /// goes to the background. Every call but `resume()` then throws `GitbaySuspended`.
    public func suspend() async {
        guard let engine = await lifecycle.suspend() else { return }
        appTokens?.use(nil)
        _ = try? await engine.store.checkpoint()
    }

    /// Opens the database again after `suspend()`; nothing when it is open.
    public func resume() async throws {
        guard lifecycle.isSuspended else { return }
        let store = try await Self.open(location, protection: fileProtection)
        appTokens?.use(store)
        lifecycle.resume(SyncEngine(store: store, options: options, logger: logger, removalStep: removalStep))
    }

    /// True while suspended.
    public var isSuspended: Bool { lifecycle.isSuspended }
}
