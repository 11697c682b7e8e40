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
    static let autostart = CommandSpec.Option(
        name: "--autostart", valueName: nil,
        help:
            "Write an XDG autostart entry instead, for a desktop session without a systemd user manager: it runs `run --every` while the session lasts."
    )
    static let noNotify = CommandSpec.Option(
        name: "--no-notify", valueName: nil, help: "Write the units with `run --no-notify`: no desktop notification when an account needs you.")

    static let spec = CommandSpec(
        words: ["service", "install"], group: .running, arguments: [], options: [.every, force, enable, autostart, noNotify],
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
            supervisor of your own. Without --enable, a systemd user manager that answers reads the
            units afresh (`systemctl --user daemon-reload`), so a timer already enabled takes a new
            period at once.

            Where /run/systemd/system is absent (the system was not started by systemd, as in most
            containers and on WSL without systemd), no user manager runs the units: it says so first,
            with what works there, and --enable exits 71 without asking systemctl. What works: `run
            --every` kept running by a supervisor of your own, or, in a desktop session, --autostart,
            which writes $XDG_CONFIG_HOME/autostart/gitbay-sync.desktop (else ~/.config/autostart)
            running `run --every DURATION` by this binary's real path with the absolute --db, from
            the next login on. `service uninstall` removes it.
            """,
        examples: [
            .init("Run at login and every 15 minutes", ["service", "install"]),
            .init("Install, enable and start in one step, checking the timer runs", ["service", "install", "--enable"]),
            .init("Run at login and every hour", ["service", "install", "--every", "1h"]),
            .init("Without desktop notifications for failures that need you", ["service", "install", "--enable", "--no-notify"]),
            .init("In a desktop session without a systemd user manager, run while the session lasts", ["service", "install", "--autostart"]),
        ]
    )

    /// The timer's period; nil for the default.
    let every: Duration?
    let force: Bool
    /// Enable and start the units once written.
    let enable: Bool
    /// An XDG autostart entry instead of the service manager's units.
    let autostart: Bool
    /// The units' runs raise desktop notifications.
    let notify: Bool

    init(every: Duration? = nil, force: Bool = false, enable: Bool = false, autostart: Bool = false, notify: Bool = true) {
        self.every = every
        self.force = force
        self.enable = enable
        self.autostart = autostart
        self.notify = notify
    }

    init(_ input: CommandInput) throws(UsageError) {
        every = try input.value(.every, IntervalParser.option)
        force = input.isSet(Self.force)
        enable = input.isSet(Self.enable)
        autostart = input.isSet(Self.autostart)
        notify = !input.isSet(Self.noNotify)
        if enable && autostart {
            throw UsageError(
                "--enable and --autostart do not go together: the session starts an autostart entry at the next login", command: Self.spec.words)
        }
    }

    func run(_ runner: CommandRunner) async throws -> ExitCode {
        if autostart { return try runner.autostartInstall(every: every, force: force, notify: notify) }
        return try await runner.serviceInstall(every: every, force: force, enable: enable, notify: notify)
    }
}

extension CommandRunner {
    /// `service install`: writes the units, all or none, into a unit folder no one else can
    /// change; a file of the same name that `service install` did not write is left alone
    /// unless `force`. With `enable`, then enables and starts them and checks they run.
    fileprivate func serviceInstall(every: Duration?, force: Bool, enable: Bool, notify: Bool) async throws -> ExitCode {
        let (units, folder) = try serviceUnits(every: every, notify: notify)
        try writeServiceFiles(units.files, into: folder, force: force)
        let paths = units.files.map { folder.filePath($0.name) }
        let wrote = paths.map { "Wrote \($0)" }
        let period = IntervalParser.format(every ?? ServiceUnits.defaultInterval)
        // Where systemd does not run this system, say so before anything else, with what works.
        let absent = units.platform == .systemd && !context.systemdBooted()
        let lead = absent ? Self.noUserManagerLead(period: period) : []
        let logs = Self.logsLines(units.platform)
        guard enable else {
            let (reloaded, next, said) = await reload(units, folder: folder, managed: !absent, period: period)
            show(installed(units, paths: paths, enabled: false, reloaded: reloaded, next: next, text: lead + wrote + said + (absent ? [] : logs)))
            return .success
        }
        if absent {
            if !global.json { (lead + wrote).forEach { context.console.out($0) } }
            throw CommandFailure(
                "the units were written (\(paths.joined(separator: ", "))), but nothing was enabled: \(SystemdPresence.marker) is absent, so no systemd user manager runs here (this system was not started by systemd). Run `gitbay-sync run --every \(period)` under a supervisor of your own, or in a desktop session `gitbay-sync service install --autostart`",
                exitCode: .notEnabled)
        }
        let (plan, outcome) = await activate(units, folder: folder)
        guard outcome == .active else {
            if !global.json { wrote.forEach { context.console.out($0) } }
            throw Self.activationFailure(plan, outcome, written: paths, interval: every ?? ServiceUnits.defaultInterval)
        }
        let said =
            units.platform == .systemd
            ? [
                "Enabled \(ServiceUnits.serviceName) (a run at every login) and \(ServiceUnits.timerName), which is active: a run every \(period).",
                "The timer runs while your user manager does: on a machine you log out of (a headless one), `loginctl enable-linger $USER` keeps it running.",
            ]
            : ["Loaded \(ServiceUnits.launchdLabel): a run now, at every login and every \(period)."]
        show(installed(units, paths: paths, enabled: true, reloaded: true, next: nil, text: wrote + said + logs))
        return .success
    }

    /// Without `--enable`: where a manager runs (`managed`), it reads the units afresh, so a
    /// timer already enabled takes the new period. Returns whether it did, what is left to
    /// run, and the lines that say so.
    private func reload(_ units: ServiceUnits, folder: UnitFolder, managed: Bool, period: String) async -> (Bool, String?, [String]) {
        var reloaded = false
        if managed, let reload = ServiceActivation.reload(units.platform) {
            reloaded = await perform(reload) == .active
        }
        guard reloaded else { return (false, units.enableCommand, ["Next, run: \(units.enableCommand)"]) }
        let enabled = InstalledService.read(units.platform, folder: folder).units.allSatisfy(\.enabled)
        let next = "systemctl --user enable --now \(ServiceUnits.timerName) \(ServiceUnits.serviceName)"
        return (
            true, enabled ? nil : next,
            [
                "Reloaded the user manager: it reads these units now.",
                enabled ? "\(ServiceUnits.timerName) is enabled: a run every \(period) from now on." : "Next, run: \(next)",
            ]
        )
    }

    /// The first lines of `service install` where no systemd user manager runs: that there is
    /// none, and what works instead.
    static func noUserManagerLead(period: String) -> [String] {
        [
            "No systemd user manager runs here: \(SystemdPresence.marker) is absent (this system was not started by systemd), so nothing will run these units.",
            "What works here: `gitbay-sync run --every \(period)` kept running by a supervisor of your own (runit, s6, supervisord, a container's command), or in a desktop session `gitbay-sync service install --autostart`, which runs it from your next login while the session lasts.",
        ]
    }

    /// Where an installed service's runs say what they did.
    static func logsLines(_ platform: ServiceUnits.Platform) -> [String] {
        let logs =
            platform == .systemd
            ? "`journalctl --user -u \(ServiceUnits.serviceName)`" : "~/Library/Logs/gitbay-sync.log (what it writes to standard error)"
        return ["Its runs log to \(logs); `gitbay-sync status --history` lists them."]
    }

    /// What `service install` reports.
    private func installed(_ units: ServiceUnits, paths: [String], enabled: Bool, reloaded: Bool, next: String?, text: [String]) -> ReportedOutput {
        ReportedOutput(
            json: .object([
                ("platform", .string(units.platform.rawValue)),
                ("written", .array(paths.map(JSONValue.string))),
                ("enabled", .bool(enabled)),
                ("reloaded", .bool(reloaded)),
                ("next", next.map(JSONValue.string) ?? .null),
            ]),
            text: text
        )
    }
}
