import GitbayReconcile
import GitbayState
import GitbaySupport
import Synchronization

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
    /// `run` without `--every`: one reconcile of every account, then finish removals that got
    /// through. Each account's line is printed as the account is done, and a terminal's
    /// standard error shows which are still in flight (`RunProgressOutput`).
    ///
    /// Accounts waiting out a backoff are left alone unless `now`. The database must exist: a
    /// run never creates one, so a service pointed at the wrong path fails (exit 66) instead of
    /// keeping an empty database of its own. `unattended` records the run for `doctor` and,
    /// with `notify`, raises a desktop notification for each account newly needing the user.
    ///
    /// SIGINT or SIGTERM stops it at once: the passes in flight are cancelled (recording
    /// nothing), the accounts done before are recorded and printed as any run's, and the last
    /// line names those not done; the process then ends by the signal. A second signal cancels
    /// what is left.
    func runOnce(concurrency: Int?, now: Bool, unattended: Bool, notify: Bool = true) async throws -> ExitCode {
        let startedAt = context.now()
        let shutdown = context.shutdown
        shutdown.claim()
        let store = try await openExistingStore()
        let baseline = unattended ? await notificationBaseline(store, notify: notify) : nil
        let (live, read) = (progressOutput(order: []), RunAccounts())
        let entries = try await liveEntries(
            store, concurrency: concurrency, now: now, live: live, read: read, history: historyTrigger(unattended: unattended))
        let records = try await read.records(orIn: store)
        let width = read.width(of: records)
        let outcomes = (entries ?? []).map { Self.said($0, now: context.now()) }
        let interrupted = shutdown.phase != .running
        // What a stop cut short is not the account's failure: it is named as not done.
        let done = interrupted ? outcomes.filter { !$0.stopped } : outcomes
        show(
            RunOutput(
                outcomes: outcomes,
                text: records.isEmpty && outcomes.isEmpty
                    ? [journalOut.line(.info, "No accounts. Sign in with `gitbay-sync login <instance-url>`.")] : []
            ))
        if !global.json { printChanged(done, printed: live.done, width: width) }
        let code = report(done, lines: false, isRun: true)
        if !interrupted { await warnOfPinnedTokens(store) }
        if unattended {
            try? await store.recordUnattendedRun(unattendedRun(.service, startedAt: startedAt, outcomes, interrupted: interrupted, period: nil))
            await raiseNotifications(before: baseline, done)
        }
        await logDatabaseWork(store)
        guard interrupted else { return code }
        if (entries ?? []).contains(where: \.hookInterrupted) {
            context.console.err(
                journalErr.line(
                    .error,
                    "Error: interrupted; the accounts not removed yet stay `removing` with their API tokens, and runs retry their removal (so does the timer, if installed)."
                ))
            return .unavailable
        }
        let finished = Set(entries == nil ? Array(live.done.keys) : done.map(\.accountID))
        let notDone = records.filter { !finished.contains($0.id) }.map(\.name)
        context.console.err(journalErr.line(.error, Self.interruption(notDone: notDone, of: records.count)))
        throw StoppedBySignal(signal: shutdown.stopSignal ?? SIGINT)
    }

    /// The run's entries, each account's line printed as it is done; nil when a second signal
    /// cancelled the run before it returned them.
    private func liveEntries(
        _ store: StateStore, concurrency: Int?, now: Bool, live: RunProgressOutput, read: RunAccounts,
        history: RunHistoryRecord.Trigger
    ) async throws -> [SyncEngine.RunEntry]? {
        let shutdown = context.shutdown
        let (journal, json, counts, fit, clock) = (journalOut, global.json, global.verbosity > 0, textWidth, context.now)
        let ticker = live.ticking(context.statusLine.tick)
        let work = Task {
            try await reconcileEntries(
                store, concurrency: concurrency, honourBackoff: !now, mayStartMore: { shutdown.phase == .running },
                stopNow: { await shutdown.wait(for: .stopping) }, history: history,
                progress: { event in
                    switch event {
                    case .read(let accounts):
                        read.tell(accounts, laidOut: !json)
                        live.order(accounts.map(\.id))
                    case .started(let account):
                        live.started(account.id, name: account.name)
                    case .finished(let entry):
                        // Under --json no line is printed: the outcome is worded once, as the run returns.
                        guard !json else { return live.finished(entry.outcome.accountID, line: nil) }
                        let outcome = Self.said(entry, now: clock())
                        let line = outcome.stopped ? nil : Self.outcomeLine(outcome, width: read.width, counts: counts, fit: fit, journal: journal)
                        live.finished(outcome.accountID, line: line)
                    }
                })
        }
        let canceller = Task {
            await shutdown.wait(for: .cancelling)
            if !Task.isCancelled { work.cancel() }
        }
        defer {
            ticker.cancel()
            canceller.cancel()
            live.end()
        }
        do {
            return try await work.value
        } catch {
            guard shutdown.phase == .cancelling else { throw error }
            return nil
        }
    }

    /// Prints the line of each outcome that differs from the one printed for it as it came (a
    /// steady verdict that could not be recorded, an account reconciled again) or that had none.
    /// Counts alone do not make a line differ: an account reconciled again that only listed says nothing new.
    func printChanged(_ outcomes: [SaidOutcome], printed: [Int64: String?], width: Int) {
        for outcome in outcomes {
            let line = outcomeLine(outcome, width: width)
            let before = printed[outcome.accountID] ?? nil
            // The same line is the same without its counts: most accounts' lines are, and skip that comparison's regex.
            if before != line, before.map(Self.withoutCounts) != Self.withoutCounts(line) { context.console.out(line) }
        }
    }

    /// A run line without its closing request and write counts (`-v`), and as one line.
    static func withoutCounts(_ line: String) -> String {
        let whole = line.replacing(/\n */, with: " ")
        guard whole.hasSuffix("]"), let open = whole.ranges(of: " [").last else { return whole }
        return String(whole[..<open.lowerBound])
    }

    /// The last line of a run a signal stopped: the accounts it left not done.
    static func interruption(notDone: [String], of total: Int) -> String {
        guard !notDone.isEmpty else { return "Error: interrupted after every account was done; their results are recorded." }
        let names = notDone.map { TerminalText.escaped($0) }.joined(separator: ", ")
        return
            "Error: interrupted: \(notDone.count) of \(total) account\(total == 1 ? "" : "s") not done: \(names). The others are recorded; the next `gitbay-sync run` reconciles these."
    }
}

/// What `run` prints on stdout as it ends: under `--json` every outcome, made only then; as
/// text, what a run without accounts says (the accounts' lines were printed as they came).
struct RunOutput: CommandOutput {
    let outcomes: [SaidOutcome]
    let text: [String]

    var json: JSONValue {
        .object([("ok", .bool(ok)), ("accounts", .array(outcomes.map(\.json)))])
    }

    /// `json` rendered, written as it is described: a run of hundreds of accounts makes no tree.
    var renderedJSON: String {
        var object = JSONObjectBytes(JSONBytes(capacity: 64 + outcomes.count * 400))
        object.begin()
        object.member("ok", ok)
        object.member("accounts", objects: outcomes) { outcome, object in outcome.describe(into: &object) }
        object.end()
        return object.text()
    }

    private var ok: Bool { !outcomes.contains { $0.isFailure || $0.unchecked != nil } }
}

/// The accounts a run read as it began (`SyncEngine.RunProgress.read`), and the width of their
/// names in its lines: what `run` lays its lines out by and names when stopped, not read again.
final class RunAccounts: Sendable {
    private let told = Mutex<(records: [AccountRecord], width: Int)?>(nil)

    /// Keeps the accounts the run read; with `laidOut` (text output), the width of their names too.
    func tell(_ records: [AccountRecord], laidOut: Bool) {
        let width = laidOut ? Self.width(of: records) : 0
        told.withLock { $0 = (records, width) }
    }

    /// The accounts told or, when none were (a second signal cancelled the run before it read
    /// them), those `store` holds now.
    func records(orIn store: StateStore) async throws -> [AccountRecord] {
        if let records = told.withLock({ $0?.records }) { return records }
        return try await store.accounts()
    }

    /// The width of the names told (0 before, or under `--json`, which lays out no line).
    var width: Int { told.withLock { $0?.width ?? 0 } }

    /// The width told, or, when none was, that of `records`' names.
    func width(of records: [AccountRecord]) -> Int {
        told.withLock { $0?.width } ?? Self.width(of: records)
    }

    private static func width(of records: [AccountRecord]) -> Int {
        records.map { TerminalText.escaped($0.name).count }.max() ?? 0
    }
}

extension SyncEngine.RunEntry {
    /// A removal a stop request cut short while its pre-remove hook ran.
    var hookInterrupted: Bool {
        if case .interrupted = removal { true } else { false }
    }
}
