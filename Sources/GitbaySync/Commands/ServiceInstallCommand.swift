import GitbaySupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `service install [--every DURATION] [--force] [--enable] [--no-notify]`.
struct ServiceInstallCommand: CommandDefinition {
    static let force = CommandSpec.Option(
        name: "--force", valueName: nil, help: "Replace unit files of the same name that `service install` did not write.")
    static let enable = CommandSpec.Option(
        name: "--enable", valueName: nil,
        help: "Then enable and start them (systemctl --user, or launchctl bootstrap) and check that the timer is active.")
    static let noNotify = CommandSpec.Option(
        name: "--no-notify", valueName: nil, help: "Write the units with `run --no-notify`: no desktop notification when an account needs you.")

    static let spec = CommandSpec(
        words: ["service", "install"], group: .running, arguments: [], options: [.every, force, enable, noNotify],
        summary: "Install the login service and periodic timer (systemd user units or a launchd agent).",
        discussion: """
            Writes gitbay-sync.service (runs once at login) and gitbay-sync.timer (every DURATION,
            default 15m) under $XDG_CONFIG_HOME/systemd/user/ (Linux), or a launchd agent with
            RunAtLoad and StartInterval under ~/Library/LaunchAgents (macOS). They run
            `run --unattended` by this binary's real path, with the absolute --db this shell uses and
            XDG_CONFIG_HOME set to this shell's (where the pre-remove hook is). The service names
            OnFailure=gitbay-sync-failure@%n.service, a template unit you may write (none is fine).
            A file of the same name that `service install` did not write is left alone (exit 78)
            unless --force. Nothing is written into a unit folder that another user owns or that
            group or others can write, nor is a missing one created inside another user's folder
            (exit 78). Prints the command that enables them.

            With --enable, it runs that command itself: `systemctl --user daemon-reload`, `enable
            gitbay-sync.service`, `enable --now gitbay-sync.timer`, then `is-active` on the timer
            (systemctl is $GITBAY_SYNC_SYSTEMCTL when set, else systemctl on PATH; on macOS,
            `launchctl bootstrap`). When that cannot be done (no systemd user manager: "Failed to
            connect to bus"; no systemctl; a step that fails) the units stay written and it exits
            71, saying which steps went through and the fix: `loginctl enable-linger $USER` (a
            headless machine stops the timer at logout without it), or `run --every` under a
            supervisor of your own.
            """,
        examples: [
            .init("Run at login and every 15 minutes", ["service", "install"]),
            .init("Install, enable and start in one step, checking the timer runs", ["service", "install", "--enable"]),
            .init("Run at login and every hour", ["service", "install", "--every", "1h"]),
            .init("Without desktop notifications for failures that need you", ["service", "install", "--enable", "--no-notify"]),
        ]
    )

    /// The timer's period; nil for the default.
    let every: Duration?
    let force: Bool
    /// Enable and start the units once written.
    let enable: Bool
    /// The units' runs raise desktop notifications.
    let notify: Bool

    init(every: Duration? = nil, force: Bool = false, enable: Bool = false, notify: Bool = true) {
        self.every = every
        self.force = force
        self.enable = enable
        self.notify = notify
    }

    init(_ input: CommandInput) throws(UsageError) {
        every = try input.value(.every, IntervalParser.option)
        force = input.isSet(Self.force)
        enable = input.isSet(Self.enable)
        notify = !input.isSet(Self.noNotify)
    }

    func run(_ runner: CommandRunner) async throws -> ExitCode {
        try await runner.serviceInstall(every: every, force: force, enable: enable, notify: notify)
    }
}

extension CommandRunner {
    /// `service install`: writes the units, all or none, into a unit folder no one else can
    /// change; a file of the same name that `service install` did not write is left alone
    /// unless `force`. With `enable`, then enables and starts them and checks they run.
    fileprivate func serviceInstall(every: Duration?, force: Bool, enable: Bool, notify: Bool) async throws -> ExitCode {
        let (units, folder) = try serviceUnits(every: every, notify: notify)
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
        let wrote = paths.map { "Wrote \($0)" }
        guard enable else {
            show(installed(units, paths: paths, enabled: false, text: wrote + ["Next, run: \(units.enableCommand)"]))
            return .success
        }
        let (plan, outcome) = await activate(units, folder: folder)
        guard outcome == .active else {
            if !global.json { wrote.forEach { context.console.out($0) } }
            throw Self.activationFailure(plan, outcome, written: paths, interval: every ?? ServiceUnits.defaultInterval)
        }
        let period = IntervalParser.format(every ?? ServiceUnits.defaultInterval)
        let said =
            units.platform == .systemd
            ? [
                "Enabled \(ServiceUnits.serviceName) (a run at every login) and \(ServiceUnits.timerName), which is active: a run every \(period).",
                "The timer runs while your user manager does: on a machine you log out of (a headless one), `loginctl enable-linger $USER` keeps it running.",
            ]
            : ["Loaded \(ServiceUnits.launchdLabel): a run now, at every login and every \(period)."]
        show(installed(units, paths: paths, enabled: true, text: wrote + said))
        return .success
    }

    /// What `service install` reports.
    private func installed(_ units: ServiceUnits, paths: [String], enabled: Bool, text: [String]) -> ReportedOutput {
        ReportedOutput(
            json: .object([
                ("platform", .string(units.platform.rawValue)),
                ("written", .array(paths.map(JSONValue.string))),
                ("enabled", .bool(enabled)),
                ("next", enabled ? .null : .string(units.enableCommand)),
            ]),
            text: text
        )
    }
}
