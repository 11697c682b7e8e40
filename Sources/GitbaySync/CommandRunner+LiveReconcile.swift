import GitbayReconcile
import GitbayState
import GitbaySupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension CommandRunner {
    /// What a command that reconciles on its way (`prefer`, `pause`, `resume`, `device clear`)
    /// got back: every account's outcome, and whether a stop cut the run short.
    struct LiveOutcomes: Sendable {
        let outcomes: [SaidOutcome]
        let interrupted: Bool
        /// The line printed for each account as it was done (nil: none).
        let printed: [Int64: String?]
        let width: Int
    }

    /// Runs `body` with an engine that prints each account's line as it is done, as `run` does
    /// (`RunProgressOutput`, the accounts in `order`); SIGINT or SIGTERM cancels the requests in
    /// flight at once (those passes record nothing) and starts no other.
    func liveReconcile(
        _ store: StateStore, order accounts: [AccountRecord], _ body: @escaping @Sendable (SyncEngine) async throws -> [AccountOutcome]
    ) async throws -> LiveOutcomes {
        try await liveReconcile(store, order: accounts, body, outcomes: { $0 }).live
    }

    /// `liveReconcile` for a use case that answers with more than its outcomes (`outcomes`
    /// picks them out). The accounts `quiet` (by id) are named by the status line while in
    /// flight, and get no line of their own: the command says what became of them.
    func liveReconcile<Value: Sendable>(
        _ store: StateStore, order accounts: [AccountRecord], quiet: Set<Int64> = [], _ body: @escaping @Sendable (SyncEngine) async throws -> Value,
        outcomes: (Value) -> [AccountOutcome]
    ) async throws -> (value: Value, live: LiveOutcomes) {
        let shutdown = context.shutdown
        shutdown.claim()
        let live = progressOutput(order: accounts.map(\.id))
        let width = accounts.map { TerminalText.escaped($0.name).count }.max() ?? 0
        let (journal, json, counts, fit, clock) = (journalOut, global.json, global.verbosity > 0, textWidth, context.now)
        let engine = engine(
            store, mayStartMore: { shutdown.phase == .running }, stopNow: { await shutdown.wait(for: .stopping) },
            progress: { event in
                switch event {
                case .read:
                    break
                case .started(let account):
                    live.started(account.id, name: account.name)
                case .finished(let outcome):
                    let said = SkipReasonText.worded(SaidOutcome(outcome), now: clock())
                    let line =
                        json || said.stopped || quiet.contains(said.accountID)
                        ? nil : Self.outcomeLine(said, width: width, counts: counts, fit: fit, journal: journal)
                    live.finished(said.accountID, line: line)
                }
            })
        let ticker = live.ticking(context.statusLine.tick)
        defer {
            ticker.cancel()
            live.end()
        }
        let value = try await body(engine)
        let said = worded(outcomes(value))
        let interrupted = shutdown.phase != .running
        // What a stop cut short is not the account's failure: it is named as not done.
        return (
            value,
            LiveOutcomes(outcomes: interrupted ? said.filter { !$0.stopped } : said, interrupted: interrupted, printed: live.done, width: width)
        )
    }

    /// Shows a command's result once its accounts' lines were printed as they came: the
    /// command's own text, the lines that changed since, the failures' summary. After a stop
    /// it names the accounts not done and ends the command by the signal.
    func showLive(_ result: LiveOutcomes, _ output: ReconciledOutput, among accounts: [AccountRecord]) throws -> ExitCode {
        if !global.json { printChanged(result.outcomes, printed: result.printed, width: result.width) }
        show(output)
        let code = report(result.outcomes, lines: false)
        guard result.interrupted else { return code }
        let answered = Set(result.outcomes.map(\.accountID))
        try stoppedAsking(accounts, answered: accounts.filter { answered.contains($0.id) })
    }
}
