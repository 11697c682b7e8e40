import GitbaySupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension CommandRunner {
    /// How much a sleep between cycles may differ from the period, either way.
    static let timerJitter = 0.1
    /// How long a cycle whose requests the grace cut short has to record and report them.
    static let reportingMargin: Duration = .seconds(5)

    /// `run --every`: reconcile, sleep the period (±10%), repeat, until SIGTERM or SIGINT.
    ///
    /// Each cycle opens the database afresh (never creating it; so a login, a token rotation or a removal by
    /// another process counts from the next cycle, or from the account's next write in this
    /// one), reconciles the accounts not waiting out a backoff and not being reconciled by
    /// another process, and lets go of the database before sleeping.
    func runEvery(_ interval: Duration, concurrency: Int?, notify: Bool = true) async throws -> ExitCode {
        let shutdown = context.shutdown
        shutdown.claim()
        let journal = journalErr
        let period = IntervalParser.format(interval)
        context.console.err(journal.line(.info, "gitbay-sync \(HelpText.version): reconciling every \(period) (±10%); stop with SIGTERM or Ctrl-C"))
        let grace = IntervalParser.format(context.shutdownGrace)
        let announcer = Task { [console = context.console] in
            await shutdown.wait(for: .stopping)
            guard !Task.isCancelled else { return }
            console.err(journal.line(.notice, "stopping: no new work; requests in flight may finish within \(grace) (a second signal cancels them)"))
            await shutdown.wait(for: .cancelling)
            guard !Task.isCancelled else { return }
            console.err(journal.line(.warning, "cancelling the requests in flight"))
        }
        defer { announcer.cancel() }

        // A cycle stops its own requests when the grace is over (`timerCycle`), and then records
        // and reports what it did: the timer cancels it only if that takes a while more.
        let timer = PeriodicRun(
            interval: interval, jitter: Self.timerJitter, grace: context.shutdownGrace + Self.reportingMargin, shutdown: shutdown,
            random: context.random, sleep: context.sleep
        )
        let ending = try await timer.run { number, pause in
            try await timerCycle(number, nextSleep: pause, interval: interval, concurrency: concurrency, notify: notify, journal: journal)
        }
        switch ending {
        case .stopped:
            context.console.err(journal.line(.info, "stopped"))
            return .success
        case .cancelled:
            throw CancellationError()
        }
    }

    /// One cycle: reconcile, then report (with `notify`, a desktop notification for each
    /// account newly needing the user). A failure to use the database ends the run.
    private func timerCycle(
        _ number: Int, nextSleep: Duration, interval: Duration, concurrency: Int?, notify: Bool, journal: JournalText
    ) async throws {
        let startedAt = context.now()
        let shutdown = context.shutdown
        // Like `run`, never creates the database: a timer pointed at the wrong path stops.
        let store = try await openExistingStore()
        let baseline = await notificationBaseline(store, notify: notify)
        let outcomes = try await reconcileOnce(
            store, concurrency: concurrency, honourBackoff: true, ceiling: interval,
            mayStartMore: { shutdown.phase == .running },
            stopNow: { [grace = context.shutdownGrace] in await PeriodicRun.graceOver(shutdown, grace: grace) }, history: .every
        )
        try? await store.recordUnattendedRun(
            unattendedRun(
                .every, startedAt: startedAt, outcomes, interrupted: shutdown.phase != .running, period: interval
            ))
        await raiseNotifications(before: baseline, outcomes)
        await logDatabaseWork(store)
        let next: Duration? = shutdown.phase == .running ? nextSleep : nil
        if global.json {
            printJSON(
                .object([
                    ("cycle", .int(number)),
                    ("started_at", .string(Timestamp.format(startedAt))),
                    ("ok", .bool(!outcomes.contains { $0.isFailure || $0.unchecked != nil })),
                    ("accounts", .array(outcomes.map(\.json))),
                    // Kept for the shape's sake: a cycle no longer fails on its own.
                    ("error", .null),
                    ("next_cycle_in_seconds", .optional(next.map { Int($0.components.seconds) })),
                ]))
        }
        let err = context.console.err
        for outcome in outcomes {
            guard let line = journal.outcomeLine(outcome, nextRetry: outcome.nextRetryAt, now: context.now(), verbose: global.verbosity > 0) else {
                continue
            }
            err(line)
        }
        if global.verbosity > 0 {
            err(journal.line(.info, JournalText.summary(number, outcomes, next: next)))
        }
    }
}
