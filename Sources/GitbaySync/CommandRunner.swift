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

/// Runs one parsed command line, and holds what every command uses: the options, the
/// process's streams and settings, the logger and the shared steps.
struct CommandRunner {
    let global: GlobalOptions
    let context: CLIContext
    let logger: Logger
    /// This command's hold on the accounts it reconciles (leases in the database, never a lock
    /// held across the network).
    let leaseHolder = LeaseHolder.new()

    init(global: GlobalOptions, context: CLIContext) {
        self.global = global
        self.context = context
        let level: Logger.Level =
            switch global.verbosity {
            case 0: .error
            case 1: .info
            case 2: .debug
            default: .trace
            }
        let err = context.console.err
        logger = Logger(minimumLevel: level) { record in err(Logger.format(record)) }
    }

    var location: StateLocation { StateLocation.resolve(explicitPath: global.databasePath, environment: context.environment) }

    func execute(_ request: Invocation.Request) async throws -> ExitCode {
        switch request {
        case .help(let topic):
            context.console.out(HelpText.topic(topic, width: context.width(of: 1)))
            return .success
        case .version:
            context.console.out(
                global.json ? JSONValue.object([("version", .string(HelpText.version))]).rendered() : "gitbay-sync \(HelpText.version)")
            return .success
        case .command(let command):
            if type(of: command).sendsRequests { try Self.requireLibcurl() }
            return try await command.run(self)
        }
    }

    // MARK: Shared steps

    /// Stops a command that talks to servers, before it changes anything, when libcurl cannot
    /// be opened.
    static func requireLibcurl() throws(CommandFailure) {
        do {
            try ConnectionPool.openLibcurl()
        } catch {
            throw CommandFailure("\(FailureText.said(error)); \(TransportError.libcurlFix)", exitCode: .unavailable)
        }
    }

    /// Opens the database, creating it when missing, for a command that changes state.
    func openStore() async throws -> StateStore {
        sayIfMoved(try await StateStore.open(location, now: context.now(), machine: context.machine()))
    }

    /// Opens the database for a command that only reads it; creates nothing when there is none.
    func openExistingStore() async throws -> StateStore {
        sayIfMoved(try await StateStore.openExisting(location, now: context.now(), machine: context.machine()))
    }

    /// Says, once (on the command that found it), that the database came from another machine
    /// and is a new install here.
    private func sayIfMoved(_ store: StateStore) -> StateStore {
        if store.movedHere { context.console.err(journalErr.line(.warning, Self.movedNotice)) }
        return store
    }

    /// What the command that finds a database made on another machine says.
    static let movedNotice =
        "Note: this state database was made on another machine (a copied home, a restored backup or a migration), so it is a new install on this one: a new install marker, no device token and no records of the other machine's rows, which are left alone. The accounts and their API tokens are kept. Set this machine's device token with `gitbay-sync device set-token`. If several machines share this folder (a network home), give each its own database with `--db` or `GITBAY_SYNC_DB`."

    /// The account `name` names, or every account when it is nil.
    func accounts(only name: String?, in store: StateStore) async throws -> [AccountRecord] {
        if let name { [try await account(named: name, in: store)] } else { try await store.accounts() }
    }

    /// Prints the partial-failure summary on stderr and returns the exit code it means.
    func finish(_ summary: PartialFailureSummary) -> ExitCode {
        TextLayout.fitted(summary.lines(), width: errorWidth).forEach(context.console.err)
        return summary.isEmpty ? .success : .partialFailure
    }

    /// The account `name` names, as `AccountName` reads it (exit 67 when there is none).
    func account(named name: String, in store: StateStore) async throws -> AccountRecord {
        if let account = try await store.account(named: AccountName.normalised(name)) { return account }
        return try AccountName.find(name, among: try await store.accounts())
    }

    /// A reconciler with this command's settings; nil takes the reconciler's own default.
    func reconciler(
        _ store: StateStore, concurrency: Int? = nil, honourBackoff: Bool = false, ceiling: Duration? = nil,
        mayStartMore: @escaping @Sendable () -> Bool = { true }
    ) -> Reconciler {
        Reconciler(
            store: store, options: options(concurrency: concurrency, honourBackoff: honourBackoff, ceiling: ceiling, mayStartMore: mayStartMore),
            logger: logger)
    }

    /// How this command reconciles: the client's configuration, the clock, the lease holder,
    /// and what its options say.
    private func options(
        concurrency: Int?, honourBackoff: Bool, ceiling: Duration?, mayStartMore: @escaping @Sendable () -> Bool,
        stopNow: (@Sendable () async -> Void)? = nil
    ) -> Reconciler.Options {
        var options = Reconciler.Options(
            honourBackoff: honourBackoff, client: context.client, now: context.now, mayStartMore: mayStartMore, leaseHolder: leaseHolder,
            keyring: keyring
        )
        options.stopNow = stopNow
        if let concurrency { options.concurrency = concurrency }
        if let ceiling { options.backoffCeiling = ceiling }
        return options
    }

    /// The use cases over `store`, with this command's options, the user's pre-remove hook, the
    /// process's stop requests, and the run history's name for the run.
    func engine(
        _ store: StateStore, concurrency: Int? = nil, honourBackoff: Bool = false, ceiling: Duration? = nil,
        mayStartMore: @escaping @Sendable () -> Bool = { true }, stopNow: (@Sendable () async -> Void)? = nil, history: RunHistoryRecord.Start? = nil,
        progress: Reconciler.Options.Listener? = nil
    ) -> SyncEngine {
        var options = options(concurrency: concurrency, honourBackoff: honourBackoff, ceiling: ceiling, mayStartMore: mayStartMore, stopNow: stopNow)
        options.history = history
        options.progress = progress
        return SyncEngine(
            store: store, options: options, logger: logger,
            removalStep: PreRemovalHook(
                path: PreRemovalHook.path(environment: context.environment), baseEnvironment: context.environment,
                timeout: context.hookTimeout, stopGrace: context.hookStopGrace
            ),
            shutdown: context.shutdown)
    }

    /// Reads a secret from stdin, or asks for it without echo on a terminal, refusing more
    /// than `limit` allows; returns it without the whitespace around it.
    func readSecret(prompt: String, limit: InputLimit) throws -> String {
        let input =
            context.console.inputIsTerminal
            ? context.console.readSecret(prompt, limit.readLimit) : context.console.readInput(limit.readLimit)
        let value: String
        switch input {
        case .tooLong: throw limit.tooLong()
        case .complete(let text): value = text.trimmingWhitespace()
        case nil: value = ""
        }
        guard !value.isEmpty else {
            throw CommandFailure("no \(limit.name) on stdin; pipe it in, e.g. `printf %s \"$TOKEN\" | gitbay-sync ...`", exitCode: .dataError)
        }
        return value
    }

    /// Reads stdin to its end, refusing more than `limit` allows; returns it without the
    /// whitespace around it.
    func readInput(limit: InputLimit) throws -> String {
        switch context.console.readInput(limit.readLimit) {
        case .tooLong: throw limit.tooLong()
        case .complete(let text):
            let value = text.trimmingWhitespace()
            guard value.utf8.count <= limit.maximumBytes else { throw limit.tooLong(bytes: value.utf8.count) }
            return value
        }
    }

    func printJSON(_ value: JSONValue) {
        context.console.out(value.rendered())
    }

    /// Lines for stdout: with journal priorities when stdout is the journal's stream.
    var journalOut: JournalText { JournalText(environment: context.environment, descriptor: 1, identity: context.streamIdentity) }
    /// Lines for stderr: with journal priorities when stderr is the journal's stream.
    var journalErr: JournalText { JournalText(environment: context.environment, descriptor: 2, identity: context.streamIdentity) }

    /// Prints each outcome (text, unless --json or not `lines`) and returns the run's exit code,
    /// naming the accounts that failed on stderr. Under systemd each line has its priority.
    func report(_ outcomes: [SaidOutcome], lines: Bool = true, isRun: Bool = false) -> ExitCode {
        if !global.json && lines {
            let width = outcomes.map { TerminalText.escaped($0.account).count }.max() ?? 0
            for outcome in outcomes { context.console.out(outcomeLine(outcome, width: width)) }
        }
        let err = journalErr
        // A closure: the key path `\.isFailure` is SaidOutcome's dynamic member, applied at run time for each outcome.
        let failed = outcomes.filter { $0.isFailure }
        let summary = PartialFailureSummary(
            failures: failed.map { outcome in
                (outcome.account, outcome.error ?? outcome.reason.map { "\(outcome.account): \($0)" } ?? "\(outcome.account) failed")
            },
            total: outcomes.count
        )
        for line in TextLayout.fitted(summary.lines(advice: Self.retryAdvice(failed)), width: errorWidth) {
            context.console.err(err.line(.error, line))
        }
        guard summary.isEmpty else { return .partialFailure }
        // A skip is not a success: accounts nothing was asked about make a run a temporary
        // failure. A command whose own change went through (a sign-in, a pause) says them, as
        // `ok` does, and succeeds: the next run checks them.
        let unchecked = outcomes.filter { $0.unchecked != nil }
        guard isRun, !unchecked.isEmpty else { return .success }
        let names = unchecked.map { TerminalText.escaped($0.account) }.joined(separator: ", ")
        let line =
            "Error: \(unchecked.count) of \(outcomes.count) account\(outcomes.count == 1 ? "" : "s") could not be checked: \(names) (why: above, and in `gitbay-sync status`); nothing failed, and the next run tries them again."
        for line in TextLayout.fitted([line], width: errorWidth) { context.console.err(err.line(.warning, line)) }
        return .busy
    }

    /// What tries the failed accounts again: runs do, after the backoff, except for a refused
    /// token, which nothing retries until the user signs in again. Its names are escaped here,
    /// before any is quoted in a command to paste.
    private static func retryAdvice(_ failed: [SaidOutcome]) -> String {
        // A refused removal's own message says how it ends.
        let refused = failed.filter { $0.condition == .authFailed && $0.skipReason != .removalTokenRefused }.map { TerminalText.escaped($0.account) }
        // A name no gitbay gives is sent nothing: removing the account is what ends it.
        let unusable = failed.filter { $0.failure == .local(.unusableName) }.map { TerminalText.escaped($0.account) }
        let retried = failed.filter { $0.condition != .authFailed && $0.failure != .local(.unusableName) }.map { TerminalText.escaped($0.account) }
        var advice: [String] = []
        if !retried.isEmpty {
            let which = refused.isEmpty ? "" : " for \(retried.joined(separator: ", "))"
            advice.append(
                "Runs try again\(which) once the backoff is over (the timer's too, if installed with `gitbay-sync service install`; `gitbay-sync run --now` tries at once)."
            )
        }
        if !refused.isEmpty {
            advice.append(
                "Nothing retries \(refused.joined(separator: ", ")) until you sign in again as \(refused.count == 1 ? "its line says" : "their lines say"): the API token was refused."
            )
        }
        for name in unusable {
            advice.append("Nothing is sent for \(name) until it is removed: `\(ShellWords.gitbaySync("remove-account", name))`.")
        }
        advice.append("`gitbay-sync status` shows each account's last error and next attempt.")
        return advice.joined(separator: " ")
    }
}
