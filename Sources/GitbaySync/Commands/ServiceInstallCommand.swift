import GitbaySupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `service install [--every DURATION] [--force]`.
struct ServiceInstallCommand: CommandDefinition {
    static let force = CommandSpec.Option(
        name: "--force", valueName: nil, help: "Replace unit files of the same name that `service install` did not write.")

    static let spec = CommandSpec(
        words: ["service", "install"], group: .running, arguments: [], options: [.every, force],
        summary: "Install the login service and periodic timer (systemd user units or a launchd agent).",
        discussion: """
            Writes gitbay-sync.service (runs once at login) and gitbay-sync.timer (every DURATION,
            default 15m) under $XDG_CONFIG_HOME/systemd/user/ (Linux), or a launchd agent with
            RunAtLoad and StartInterval under ~/Library/LaunchAgents (macOS). They run
            `run --unattended` by this binary's real path, with the absolute --db this shell uses and
            XDG_CONFIG_HOME set to this shell's (where the pre-remove hook is). A file of the same
            name that `service install` did not write is left alone (exit 78) unless --force.
            Nothing is written into a unit folder that another user owns or that group or others
            can write, nor is a missing one created inside another user's folder (exit 78).
            Prints the command that enables them.
            """,
        examples: [
            .init("Run at login and every 15 minutes", ["service", "install"]),
            .init("Run at login and every hour", ["service", "install", "--every", "1h"]),
        ]
    )

    /// The timer's period; nil for the default.
    let every: Duration?
    let force: Bool

    init(every: Duration? = nil, force: Bool = false) {
        self.every = every
        self.force = force
    }

    init(_ input: CommandInput) throws(UsageError) {
        every = try input.value(.every, IntervalParser.option)
        force = input.isSet(Self.force)
    }

    func run(_ runner: CommandRunner) async throws -> ExitCode {
        try runner.serviceInstall(every: every, force: force)
    }
}

extension CommandRunner {
    /// `service install`: writes the units, all or none, into a unit folder no one else can
    /// change; a file of the same name that `service install` did not write is left alone
    /// unless `force`.
    fileprivate func serviceInstall(every: Duration?, force: Bool) throws -> ExitCode {
        let (units, folder) = try serviceUnits(every: every)
        // Before anything else about the folder: what is in it counts for nothing if others can change it.
        if let problem = folder.trustProblem {
            throw CommandFailure(UnitFolder.Refused(path: folder.path, reason: .unsafe(problem)).description, exitCode: .foreignFile)
        }
        try refuseHandWritten(folder, units.files.map(\.name), force: force, doing: "install")
        do {
            try folder.writeAll(units.files)
        } catch let refused as UnitFolder.Refused {
            throw CommandFailure(refused.description, exitCode: .foreignFile)
        } catch {
            throw CommandFailure(
                "\(error); nothing was written. Make the folder writable, or set XDG_CONFIG_HOME to a folder of your own",
                exitCode: .stateError
            )
        }
        if !location.databaseExists {
            context.console.err(
                "Note: there is no state database at \(absoluteDatabasePath()) yet; the service's runs fail (exit 66) until you sign in: `gitbay-sync login <instance-url>`."
            )
        }
        let paths = units.files.map { folder.filePath($0.name) }
        show(
            ReportedOutput(
                json: .object([
                    ("platform", .string(units.platform.rawValue)),
                    ("written", .array(paths.map(JSONValue.string))),
                    ("next", .string(units.enableCommand)),
                ]),
                text: paths.map { "Wrote \($0)" } + ["Next, run: \(units.enableCommand)"]
            ))
        return .success
    }

    /// `service uninstall [--force]`: removes the units (and the links `systemctl enable` made).
}
