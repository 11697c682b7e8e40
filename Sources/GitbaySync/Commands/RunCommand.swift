import GitbayAPI
import GitbayCurl
import GitbayReconcile
import GitbayState
import GitbaySupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `run [--every DURATION] [--concurrency N] [--now] [--unattended]`.
struct RunCommand: CommandDefinition {
    /// How many accounts `--concurrency` allows at once.
    static let concurrencyRange = 1...512
    static let concurrency = CommandSpec.Option(
        name: "--concurrency", valueName: "N",
        help:
            "The most accounts reconciled at once in all (\(concurrencyRange.lowerBound) to \(concurrencyRange.upperBound), default \(Reconciler.Options.defaultConcurrency)); every instance is reconciled at once, at most \(Reconciler.Options.defaultPerTLSInstance) accounts of an https instance at a time over at most \(ConnectionPool.defaultConnectionsPerInstance) connections (HTTP/2 carries them as streams of one), and \(Reconciler.Options.defaultPerInstance) of a plain http one."
    )
    static let now = CommandSpec.Option(
        name: "--now", valueName: nil, help: "Also try the accounts waiting out a backoff or a server's Retry-After, at once.")
    static let unattended = CommandSpec.Option(
        name: "--unattended", valueName: nil, help: "Record the run's time and result as the service's, for `doctor` (the units pass it).")
    static let noNotify = CommandSpec.Option(
        name: "--no-notify", valueName: nil,
        help: "With --unattended or --every: raise no desktop notification when an account newly needs you.")

    static let sendsRequests = true
    /// An account's deadline in whole seconds, as the help says it.
    static let deadlineSeconds = ClientConfiguration.defaultDeadline.components.seconds

    static let spec = CommandSpec(
        words: ["run"], group: .running, arguments: [], options: [.every, concurrency, now, dryRun, unattended, noNotify],
        summary: "Reconcile every account with its server once (or every DURATION).",
        discussion: """
            Lists this device's rows on each account's server and adds or removes rows until the
            server holds exactly what it should: one row with the current token for each active
            account, none for paused or removed accounts or old tokens. Exits 0 when every account
            is in its desired state or waits out a backoff, 1 when any failed (named on stderr),
            75 when none failed but one or more could not be checked (its API token in a locked
            or absent keyring, another gitbay-sync holding it): a skip is not a success.

            An account that failed is left alone until its next attempt is due: a server's
            Retry-After or write-limit wait (at most an hour, however long the server asks for),
            else one minute doubling per failure in a row (at most an hour; an hour for a denied or
            push-disabled account). It is reported `skipped` with that time, and `gitbay-sync
            status` shows it. A next attempt recorded further ahead than any wait a run sets (a
            clock that ran ahead, or a wrong server) is not waited for: the account is tried. To
            try every account now anyway, run `gitbay-sync run --now`. There must be a state
            database already (exit 66 otherwise): `run` never creates one.

            Each account's line is printed as the account is done, the failures' summary last;
            on a terminal the lines keep the accounts' sign-in order, but none waits for an
            account in flight for a second; `-v` adds each account's requests and writes.
            On a terminal, once accounts have been in flight for a second, a line on stderr says
            which and for how long, cleared when the run ends (not with --json or through a
            pipe). SIGINT (Ctrl-C) or SIGTERM stops the run at once: requests in flight are
            cancelled, the accounts done before are recorded and printed, the last line names
            those not done, and the process ends by the signal (a shell shows 130 for Ctrl-C;
            69 when it stopped a pre-remove hook).

            Each account's requests get \(Self.deadlineSeconds) seconds in all, retries and their waits
            included: every attempt at most what is left of that, and no retry once it is over. An
            instance that does not answer costs a run about that long (the accounts of other
            instances go on meanwhile), and the account fails as a timeout, backing off as above.

            A token `login --ssh` minted is rotated once a third of its lifetime or less is left:
            the run mints its successor through the API with it, stores it and revokes the old
            one (a crash in between leaves both valid, and the next run revokes the old one).
            Tokens far from their expiry cost no request. A token kept in the OS keyring is rotated
            too, its successor in a keyring item of its own; while the keyring is locked, nothing
            is minted.

            With --every, repeats every DURATION (±10%) until SIGTERM or SIGINT, one line on stderr
            per account that changed or failed (-v: every account); a failing account waits out its
            own backoff (at most DURATION, and never more than six hours; a server's wait is
            honoured up to an hour even when longer than DURATION). The first signal lets
            requests in flight finish, for up to 10 seconds (an account whose requests that cuts
            short is said `stopped`), and exits 0; a second cancels them. --json prints one JSON
            object per cycle (JSON Lines). --now cannot be combined with --every.

            With --dry-run, says what a run would add, remove, adopt and forget on each account's
            server, and which accounts it would leave alone and why: it sends only the lists a run
            sends first and writes nothing, to a server or the database.

            With --unattended (as the service runs it) or --every, an account the run finds newly
            in a condition that needs you (auth-failed, denied, push-disabled; not one already in it
            before the run) raises one desktop notification naming it and the fix: notify-send on
            Linux ($GITBAY_SYNC_NOTIFY when set), osascript on macOS. Without a desktop session (no
            DISPLAY, WAYLAND_DISPLAY or DBUS_SESSION_BUS_ADDRESS) or notify-send, none is raised and
            the run is the same; --no-notify turns them off.
            """,
        examples: [
            .init("Bring every account's server in line once", ["run"]),
            .init("Also try the accounts waiting out a backoff, now", ["run", "--now"]),
            .init("Keep at it every 15 minutes, under a supervisor of your own", ["run", "--every", "15m"]),
            .init("Once, with one JSON object of every account's outcome", ["run", "--json"]),
            .init("See what a run would change, without changing anything", ["run", "--dry-run"]),
        ]
    )

    /// How a run goes: once, or every period until stopped.
    enum Schedule: Sendable, Equatable {
        /// One pass; `now` tries accounts waiting out a backoff too.
        case once(now: Bool)
        /// What one pass would do, without doing it.
        case dryRun(now: Bool)
        case every(Duration)
    }

    let schedule: Schedule
    /// The most accounts in flight at once in all; nil for the reconciler's default.
    let concurrency: Int?
    /// Records the run as the installed service's.
    let unattended: Bool
    /// An unattended run raises desktop notifications for new failures that need the user.
    let notify: Bool

    init(_ schedule: Schedule = .once(now: false), concurrency: Int? = nil, unattended: Bool = false, notify: Bool = true) {
        self.schedule = schedule
        self.concurrency = concurrency
        self.unattended = unattended
        self.notify = notify
    }

    init(_ input: CommandInput) throws(UsageError) {
        let every = try input.value(.every, IntervalParser.option)
        let now = input.isSet(Self.now)
        if input.isSet(Self.dryRun) {
            guard every == nil, !input.isSet(Self.unattended) else {
                throw input.error("--dry-run cannot be combined with --every or --unattended: a dry run is one look, made by hand")
            }
            schedule = .dryRun(now: now)
        } else if let every {
            guard !now else {
                throw input.error("--now and --every cannot be combined: every cycle of --every waits out each account's backoff")
            }
            schedule = .every(every)
        } else {
            schedule = .once(now: now)
        }
        concurrency = try input.value(Self.concurrency, Self.concurrency(_:))
        unattended = input.isSet(Self.unattended)
        notify = !input.isSet(Self.noNotify)
    }

    private static func concurrency(_ text: String) throws(UsageError) -> Int {
        guard let number = Int(text), concurrencyRange.contains(number) else {
            throw UsageError(
                "invalid value for --concurrency: '\(text)'; give a whole number from \(concurrencyRange.lowerBound) to \(concurrencyRange.upperBound)"
            )
        }
        return number
    }

    func run(_ runner: CommandRunner) async throws -> ExitCode {
        switch schedule {
        case .once(let now): try await runner.runOnce(concurrency: concurrency, now: now, unattended: unattended, notify: notify)
        case .every(let period): try await runner.runEvery(period, concurrency: concurrency, notify: notify)
        case .dryRun(let now): try await runner.dryRun(concurrency: concurrency, now: now)
        }
    }
}

extension CommandRunner {
    /// One debug line (`-vv`) with the write transactions the run made on the state database.
    func logDatabaseWork(_ store: StateStore) async {
        logger.debug("database: \(await store.databaseCounters().writeTransactions) write transactions")
    }
}
