import FoundationEssentials

/// What the commands get from the process: environment, streams and tunables.
public struct CLIContext: Sendable {
    public var environment: [String: String]
    public var console: Console
    /// Timeouts and retries of every API client.
    public var client: ClientConfiguration
    /// How long the user's pre-remove hook may run.
    public var hookTimeout: Duration
    /// How long a hook being stopped has after SIGTERM before its process group gets SIGKILL.
    public var hookStopGrace = PreRemovalHook.defaultStopGrace
    public var now: @Sendable () -> Date
    /// Stop and cancel requests from the process (SIGTERM, SIGINT), for `run --every` and a
    /// running pre-remove hook, and the cleanups a signal ending the process runs first.
    public var shutdown = ShutdownSignal()
    /// How long `run --every` lets requests in flight finish after the first stop request.
    public var shutdownGrace: Duration = .seconds(10)
    /// The sleep between `run --every` cycles; tests replace it so cycles follow at once.
    public var sleep: @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) }
    /// A number in `0..<1` for the timer's jitter.
    public var random: @Sendable () -> Double = { Double.random(in: 0..<1) }
    /// The real path of the running executable, for the service units (nil when unknown).
    public var executablePath: @Sendable () -> String? = { ExecutablePath.current() }
    /// The `device:inode` of an open descriptor (1 or 2), compared with `$JOURNAL_STREAM` to
    /// tell whether the stream is the journal's; tests replace it.
    public var streamIdentity: @Sendable (Int32) -> String? = { JournalText.identity(of: $0) }

    public init(
        environment: [String: String], console: Console, client: ClientConfiguration = .init(),
        hookTimeout: Duration = .seconds(30), now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.environment = environment
        self.console = console
        self.client = client
        self.hookTimeout = hookTimeout
        self.now = now
    }
}

/// A command that ran but could not do what was asked: the message says why and what to do.
struct CommandFailure: Error, CustomStringConvertible {
    let message: String
    let exitCode: ExitCode

    init(_ message: String, exitCode: ExitCode) {
        self.message = message
        self.exitCode = exitCode
    }

    var description: String { message }
}

/// The program: parse, run, and report every error in one place.
public enum GitbaySyncCLI {
    /// Runs one command line and returns the process exit code.
    public static func run(arguments: [String], context: CLIContext) async -> Int32 {
        let invocation: Invocation
        do {
            invocation = try CommandLineParser.parse(arguments)
        } catch {
            return report(error, context: context).rawValue
        }
        let runner = CommandRunner(global: invocation.global, context: context)
        do {
            return try await runner.execute(invocation.command).rawValue
        } catch {
            return report(error, context: context).rawValue
        }
    }

    /// Prints an error to stderr as `Error: …` (with the usage for a usage error) and returns
    /// its exit code.
    ///
    /// A message is one line of our words around outside values (a server's `error`, a name,
    /// a payload field, a curl or SQLite message), none of which we write with a control
    /// character or a backslash: escaping it whole is escaping those values, wherever in the
    /// message they travelled. So a message keeps its values raw until it is printed.
    static func report(_ error: Error, context: CLIContext) -> ExitCode {
        let journal = JournalText(environment: context.environment, descriptor: 2, identity: context.streamIdentity)
        let err: @Sendable (String) -> Void = { [console = context.console] line in
            // In the journal: the error at error priority, the usage lines after it at info.
            console.err(line.hasPrefix("Error: ") ? journal.line(.error, line) : journal.line(.info, line))
        }
        switch error {
        case let usage as UsageError:
            err("Error: \(escaped: usage.message)")
            if let words = usage.commandWords, let line = HelpText.usage(words) {
                err("Usage: \(line)")
                err("See 'gitbay-sync \(words.joined(separator: " ")) --help'.")
            } else {
                err("Usage: gitbay-sync <command> [options]")
                err("See 'gitbay-sync --help'.")
            }
            return .usage
        case let failure as CommandFailure:
            err("Error: \(escaped: failure.message)")
            return failure.exitCode
        case let store as StoreError:
            err("Error: \(escaped: store.description)")
            switch store {
            case .noDatabase: return .noDatabase
            default: return .stateError
            }
        case let gitbay as GitbayError:
            err("Error: \(escaped: gitbay.description)")
            switch gitbay.kind {
            case .authFailed, .readOnlyToken, .denied: return .denied
            default: return .unavailable
            }
        case is CancellationError:
            err("Error: interrupted")
            return .unavailable
        default:
            err("Error: \(escaped: String(describing: error))")
            return .partialFailure
        }
    }
}
