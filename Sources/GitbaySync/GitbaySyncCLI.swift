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

/// What the commands get from the process: environment, streams and tunables.
package struct CLIContext: Sendable {
    package var environment: [String: String]
    package var console: Console
    /// Timeouts and retries of every API client.
    package var client: ClientConfiguration
    /// How long the user's pre-remove hook may run.
    package var hookTimeout: Duration
    /// How long a hook being stopped has after SIGTERM before its process group gets SIGKILL.
    package var hookStopGrace = PreRemovalHook.defaultStopGrace
    /// How long `login --ssh` lets ssh run before it is stopped.
    package var sshTimeout: Duration = .seconds(60)
    package var now: @Sendable () -> Date
    /// Stop and cancel requests from the process (SIGTERM, SIGINT), for `run --every` and a
    /// running pre-remove hook, and the cleanups a signal ending the process runs first.
    package var shutdown = ShutdownSignal()
    /// How long `run --every` lets requests in flight finish after the first stop request.
    package var shutdownGrace: Duration = .seconds(10)
    /// The sleep between `run --every` cycles; tests replace it so cycles follow at once.
    package var sleep: @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) }
    /// A number in `0..<1` for the timer's jitter.
    package var random: @Sendable () -> Double = { Double.random(in: 0..<1) }
    /// The real path of the running executable, for the service units (nil when unknown).
    package var executablePath: @Sendable () -> String? = { ExecutablePath.current() }
    /// Whether this system was started by systemd, so that a systemd user manager can run the
    /// units (`/run/systemd/system` is a folder, as systemd's own tools check); tests replace it.
    package var systemdBooted: @Sendable () -> Bool = { SystemdPresence.booted() }
    /// The `device:inode` of an open descriptor (1 or 2), compared with `$JOURNAL_STREAM` to
    /// tell whether the stream is the journal's; tests replace it.
    package var streamIdentity: @Sendable (Int32) -> String? = { JournalText.identity(of: $0) }
    /// This machine, as the install is bound to it (nil: none can be read); tests replace it
    /// to open a database as another machine would.
    package var machine: @Sendable () -> MachineIdentity? = { MachineIdentity.current() }
    /// The width of the terminal a descriptor (1 or 2) writes to, nil when it is none; help
    /// and usage lines wrap to it unless `COLUMNS` says otherwise. Tests replace it.
    package var terminalColumns: @Sendable (Int32) -> Int? = { TerminalWidth.columns(of: $0) }
    /// When `run`'s status line shows on a terminal and what paces its redraws; tests replace
    /// the pace with steps of their own.
    package var statusLine = RunProgressOutput.Timing()

    package init(
        environment: [String: String], console: Console, client: ClientConfiguration = .init(http: CurlTransport.shared),
        hookTimeout: Duration = PreRemovalHook.defaultTimeout, now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.environment = environment
        self.console = console
        self.client = client
        self.client.transport.trustCertificates(from: environment)
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
package enum GitbaySyncCLI {
    /// Runs one command line and returns the process exit code.
    package static func run(arguments: [String], context: CLIContext) async -> Int32 {
        let code: ExitCode
        do {
            let invocation = try CommandLineParser.parse(arguments)
            do {
                code = try await CommandRunner(global: invocation.global, context: context).execute(invocation.request)
            } catch let stopped as StoppedBySignal {
                // Said already; the shell is told of the signal as for any program it ended.
                return 128 + stopped.signal
            } catch {
                code = report(error, context: context, json: invocation.global.json)
            }
        } catch {
            code = report(error, context: context, json: CommandLineParser.asksForJSON(arguments))
        }
        return checkOutput(code, context: context).rawValue
    }

    /// `code`, unless a write to stdout or stderr failed: then a run that would say it did
    /// everything (0) or named its failures (1) exits 73, as its report is incomplete. A
    /// command that failed otherwise keeps its own code.
    static func checkOutput(_ code: ExitCode, context: CLIContext) -> ExitCode {
        guard let failure = context.console.outputFailure() else { return code }
        context.console.err("Error: could not write to \(failure.stream): \(failure.reason); the command's output is incomplete.")
        return code == .success || code == .partialFailure ? .outputFailed : code
    }

    /// Prints an error to stderr as `Error: …` (with the usage for a usage error) and returns
    /// its exit code. Under `--json` it also prints `{"error": {"message", "exit_code", "kind"}}`
    /// on stdout, so that a script reading stdout learns why there is no result.
    ///
    /// A message is one line of our words around outside values (a server's `error`, a name,
    /// a payload field, a curl or SQLite message), none of which we write with a control
    /// character or a backslash: escaping it whole is escaping those values, wherever in the
    /// message they travelled. So a message keeps its values raw until it is printed (and
    /// JSON carries it raw, as JSON escapes itself).
    static func report(_ error: Error, context: CLIContext, json: Bool) -> ExitCode {
        let (code, message, kind) = classify(error)
        let journal = JournalText(environment: context.environment, descriptor: 2, identity: context.streamIdentity)
        let err: @Sendable (String) -> Void = { [console = context.console] line in
            // In the journal: the error at error priority, the usage lines after it at info.
            console.err(line.hasPrefix("Error: ") ? journal.line(.error, line) : journal.line(.info, line))
        }
        err("Error: \(escaped: message)")
        if let usage = error as? UsageError {
            if let words = usage.commandWords, let lines = HelpText.usageLines(words, width: context.width(of: 2)) {
                lines.forEach(err)
                err("See 'gitbay-sync \(words.joined(separator: " ")) --help'.")
            } else {
                err("Usage: gitbay-sync <command> [options]")
                err("See 'gitbay-sync --help'.")
            }
        }
        if json {
            context.console.out(
                JSONValue.object([
                    (
                        "error",
                        .object([
                            ("message", .string(message)),
                            ("exit_code", .int(Int(code.rawValue))),
                            ("kind", .string(kind)),
                        ])
                    )
                ]).rendered())
        }
        return code
    }

    /// An error's exit code, message and the `kind` its JSON form names.
    static func classify(_ error: Error) -> (code: ExitCode, message: String, kind: String) {
        let (code, message): (ExitCode, String) =
            switch error {
            case let usage as UsageError: (.usage, usage.message)
            case let failure as CommandFailure: (failure.exitCode, failure.message)
            case let refusal as SyncEngine.Refusal: (CommandRunner.failure(refusal).exitCode, CommandRunner.failure(refusal).message)
            case let store as StoreError:
                switch store {
                case .noDatabase: (.noDatabase, FailureText.said(store))
                case .busy: (.busy, FailureText.said(store))
                default: (.stateError, FailureText.said(store))
                }
            case let gitbay as GitbayError:
                switch gitbay.kind {
                case .authFailed, .readOnlyToken, .denied: (.denied, FailureText.said(gitbay, instance: nil))
                default: (.unavailable, FailureText.said(gitbay, instance: nil))
                }
            case is CancellationError: (.unavailable, "interrupted")
            default: (.partialFailure, String(describing: error))
            }
        return (code, message, error is CancellationError ? "interrupted" : code.kind)
    }
}
