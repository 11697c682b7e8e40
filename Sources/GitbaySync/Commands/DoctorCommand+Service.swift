import GitbayReconcile
import GitbayState
import GitbaySupport

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
    /// The service: whether its files are installed and enabled, whether they call this binary
    /// with this database and this shell's pre-remove hook, and when it last ran. Reads files
    /// and the database only; no service manager is asked, so it works without a running
    /// systemd.
    func serviceChecks(_ store: StateStore?) async -> [DoctorCheck] {
        let platform = ServiceUnits.Platform.current
        let installed = InstalledService.read(platform, folder: UnitFolder.resolve(platform, environment: context.environment))
        var checks: [DoctorCheck] = []
        let hook = PreRemovalHook(path: PreRemovalHook.path(environment: context.environment))
        if hook.isInstalled { checks.append(Self.hookCheck(hook)) }
        checks.append(unitsCheck(installed))
        if installed.service.isPresent { checks.append(commandCheck(installed)) }
        if let store, let lastRun = await lastRunCheck(installed, store: store) { checks.append(lastRun) }
        return checks
    }

    /// `service.units`: the files are there (all of them) and, for systemd, enabled. None at
    /// all is a warning, not a failure: running `gitbay-sync run` by hand, or `run --every`
    /// under a supervisor of one's own, is a choice.
    private func unitsCheck(_ installed: InstalledService) -> DoctorCheck {
        let platform = installed.platform
        let subject = platform == .systemd ? installed.folder.path : installed.service.path
        let enable = ServiceUnits.enableCommand(platform)
        if let unsafe = Self.unsafeFolderCheck(installed.folder, subject: subject) { return unsafe }
        if let check = unitsCheckWithoutManager(installed, subject: subject) { return check }
        let missing = installed.units.filter { !$0.isPresent }.map(\.name)
        if !missing.isEmpty {
            return .fail(
                "service.units", subject, "\(missing.joined(separator: " and ")) is missing: the units are half installed",
                fix: "`gitbay-sync service install` writes them all, then `\(enable)`")
        }
        let byHand = installed.units.filter { !$0.isGenerated }.map(\.name)
        let note = byHand.isEmpty ? "" : " (\(byHand.joined(separator: " and ")) not written by `gitbay-sync service install`)"
        guard platform == .systemd else {
            return .pass(
                "service.units", subject,
                "installed: launchd loads the agent at login (`launchctl print gui/$(id -u)/\(ServiceUnits.launchdLabel)` shows whether it is loaded now)\(note)"
            )
        }
        let period = installed.period.map { " every \(IntervalParser.format($0))" } ?? ""
        let disabled = installed.units.filter { !$0.enabled }
        if disabled.isEmpty {
            return .pass(
                "service.units", subject,
                "installed and enabled: \(ServiceUnits.serviceName) runs at login, \(ServiceUnits.timerName)\(period)\(note)")
        }
        let links = disabled.compactMap { unit in unit.wantedBy.map { "\($0).wants/\(unit.name)" } }.joined(separator: " and ")
        if disabled.contains(where: { $0.name == ServiceUnits.timerName }) {
            let what =
                disabled.count == installed.units.count
                ? "neither unit is enabled: nothing runs" : "\(ServiceUnits.timerName) is not enabled: nothing runs on a timer"
            return .fail("service.units", subject, "installed, but \(what) (no \(links))\(note)", fix: "`\(enable)`")
        }
        return .warn(
            "service.units", subject,
            "installed, but \(ServiceUnits.serviceName) is not enabled: it runs on the timer\(period), not at login (no \(links))\(note)",
            fix: "`\(enable)`")
    }

    /// `service.command`: the service runs `gitbay-sync run` by an executable that is there
    /// (this binary, or a warning), with this shell's database and pre-remove hook folder, and
    /// records its runs (`--unattended`).
    private func commandCheck(_ installed: InstalledService) -> DoctorCheck {
        let subject = installed.service.path
        let handWritten = !installed.service.isGenerated
        let reload =
            installed.platform == .systemd
            ? "`systemctl --user daemon-reload`"
            : "`launchctl bootout gui/$(id -u)/\(ServiceUnits.launchdLabel)` and `\(ServiceUnits.enableCommand(.launchd))`"
        let fix =
            "run `gitbay-sync service install\(handWritten ? " --force" : "")` with the binary and in the shell you use (it writes the units afresh), then \(reload)"
        guard let arguments = installed.arguments, let program = arguments.first, !program.isEmpty else {
            return .fail("service.command", subject, "no command line can be read from it", fix: fix)
        }
        let options = Array(arguments.dropFirst())
        var problems: [(level: DoctorCheck.Level, text: String)] = []

        var info = stat()
        if stat(program, &info) != 0 || (info.st_mode & S_IFMT) != S_IFREG || access(program, X_OK) != 0 {
            problems.append((.fail, "it calls \(program), which is not an executable file"))
        } else if let this = context.executablePath(), !Self.samePath(program, this) {
            problems.append((.warning, "it calls \(program), not this binary (\(this))"))
        }
        if !options.contains("run") {
            problems.append((.fail, "it does not run `gitbay-sync run`"))
        }

        problems += settingProblems(installed, options: options)
        let ourHook = PreRemovalHook.path(environment: context.environment)

        guard !problems.isEmpty else {
            return .pass(
                "service.command", subject,
                "runs `gitbay-sync run --unattended` by this binary (\(program)) with this database and this shell's pre-remove hook (\(ourHook))")
        }
        let detail = problems.map(\.text).joined(separator: "; ")
        return problems.contains { $0.level == .fail }
            ? .fail("service.command", subject, detail, fix: fix)
            : .warn("service.command", subject, detail, fix: fix)
    }

    /// What the service's command line sets differently from this shell: the database, the
    /// run record and the pre-remove hook's folder.
    private func settingProblems(_ installed: InstalledService, options: [String]) -> [(level: DoctorCheck.Level, text: String)] {
        var problems: [(level: DoctorCheck.Level, text: String)] = []
        let environment = serviceEnvironment(installed)
        let named = Self.optionValue("--db", in: options)
        let base = installed.platform == .systemd ? HomeFolder.path(environment: environment) : "/"
        let resolved = StateLocation.resolve(explicitPath: named, environment: environment).databasePath
        let theirs = resolved.hasPrefix("/") ? resolved : base + "/" + resolved
        let ours = absoluteDatabasePath()
        if !Self.samePath(theirs, ours) {
            problems.append((.fail, "it uses the database \(theirs); this shell uses \(ours)"))
        } else if named == nil {
            problems.append((.warning, "it names no --db: it reaches \(ours) only through the service's environment"))
        }
        if !options.contains("--unattended") {
            problems.append(
                (.warning, "it does not pass --unattended, so its runs are not recorded for doctor (units written by an earlier gitbay-sync)"))
        }

        let theirHook = PreRemovalHook.path(environment: environment)
        let ourHook = PreRemovalHook.path(environment: context.environment)
        if !Self.samePath(theirHook, ourHook) {
            // Only a hook that exists is run or skipped; a different folder matters once there is one.
            let matters = access(ourHook, F_OK) == 0 || access(theirHook, F_OK) == 0
            problems.append((matters ? .fail : .warning, "it looks for the pre-remove hook at \(theirHook); this shell's is \(ourHook)"))
        }
        return problems
    }

    /// `service.last-run`: when the installed service last ran and how it went, from the
    /// record its `run --unattended` keeps in the database (or, with no service installed, the
    /// last cycle of a `run --every`). A failed or old run is a warning: the account checks say
    /// what is wrong now, and a computer that slept has not run its timer.
    private func lastRunCheck(_ installed: InstalledService, store: StateStore) async -> DoctorCheck? {
        let systemd = installed.platform == .systemd
        if installed.service.isPresent {
            let subject = systemd ? ServiceUnits.serviceName : ServiceUnits.launchdLabel
            guard let run = try? await store.lastUnattendedRun(.service) else {
                let start =
                    systemd
                    ? "`systemctl --user start \(ServiceUnits.serviceName)` runs it now"
                    : "`launchctl kickstart gui/$(id -u)/\(ServiceUnits.launchdLabel)` runs it now"
                return .warn(
                    "service.last-run", subject, "no run of the service is recorded in this database yet",
                    fix:
                        "it runs at login and on its timer (\(start)); if it did run, it uses another database or was installed by an earlier gitbay-sync (see service.command)"
                )
            }
            let logs = systemd ? "`journalctl --user -u gitbay-sync`" : "~/Library/Logs/gitbay-sync.log"
            let stale =
                systemd
                ? "`systemctl --user status \(ServiceUnits.timerName) \(ServiceUnits.serviceName)` shows whether the timer runs (it does not while the computer sleeps)"
                : "`launchctl print gui/$(id -u)/\(ServiceUnits.launchdLabel)` shows whether the agent is loaded (it does not run while the computer sleeps)"
            return lastRunCheck(run, subject: subject, period: installed.period, logs: logs, whenStale: stale)
        }
        guard let run = try? await store.lastUnattendedRun(.every) else { return nil }
        return lastRunCheck(
            run, subject: "run --every", period: run.period, logs: "its output", whenStale: "check that `gitbay-sync run --every` is still running")
    }

    private func lastRunCheck(_ run: UnattendedRunRecord, subject: String, period: Duration?, logs: String, whenStale: String) -> DoctorCheck {
        let elapsed = max(0, context.now().timeIntervalSince(run.finishedAt))
        let when = "\(Timestamp.format(run.finishedAt)) (\(RelativeTime.said(run.finishedAt, now: context.now())))"
        var detail: String
        var fixes: [String] = []
        switch run.result {
        case .ok:
            let waiting = run.waiting == 0 ? "" : ", \(run.waiting) waiting out a backoff"
            detail = "last ran at \(when): ok, \(run.accounts) account\(run.accounts == 1 ? "" : "s")\(waiting)"
        case .failed:
            detail =
                "last ran at \(when): \(run.failedAccounts.count) of \(run.accounts) accounts failed (\(run.failedAccounts.joined(separator: ", ")))"
            fixes.append("`gitbay-sync status` shows why and when each is tried again; \(logs) has the run's lines")
        case .unchecked:
            detail =
                "last ran at \(when): \(run.uncheckedAccounts.count) of \(run.accounts) accounts could not be checked (\(run.uncheckedAccounts.joined(separator: ", ")))"
            fixes.append("`gitbay-sync status` shows why each could not be checked")
        case .interrupted:
            detail = "last ran at \(when) and was interrupted"
            fixes.append("the next run goes on where it stopped; \(logs) has the run's lines")
        }
        // Two periods and the timer's spread: one late run is not a stopped timer.
        if let period, elapsed > Double(period.components.seconds) * 2.2 + 60 {
            detail += "; that is more than twice its period (\(IntervalParser.format(period))) ago"
            fixes.append(whenStale)
        }
        return fixes.isEmpty
            ? .pass("service.last-run", subject, detail)
            : .warn("service.last-run", subject, detail, fix: fixes.joined(separator: "; "))
    }

    /// The environment the service runs with, as far as the files tell: the home folder and
    /// what the unit (or agent) sets. Nothing else of this shell's (no XDG_* variables, no
    /// GITBAY_SYNC_DB) reaches a service.
    private func serviceEnvironment(_ installed: InstalledService) -> [String: String] {
        ["HOME": HomeFolder.path(environment: context.environment)].merging(installed.environment) { $1 }
    }

    /// The value of `--name VALUE` or `--name=VALUE` in a command line, the last one winning.
    static func optionValue(_ name: String, in arguments: [String]) -> String? {
        var value: String?
        var index = arguments.startIndex
        while index < arguments.endIndex {
            let word = arguments[index]
            if word == "--" { break }
            if word == name, index + 1 < arguments.endIndex {
                value = arguments[index + 1]
                index += 1
            } else if word.hasPrefix(name + "=") {
                value = String(word.dropFirst(name.count + 1))
            }
            index += 1
        }
        return value
    }

    /// Whether two paths name one file: the same text, or the same file once links are resolved.
    static func samePath(_ first: String, _ second: String) -> Bool {
        if first == second { return true }
        guard let one = ExecutablePath.resolved(first), let other = ExecutablePath.resolved(second) else { return false }
        return one == other
    }
}
