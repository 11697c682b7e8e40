import FoundationEssentials

extension CommandRunner {
    /// `service show [--every]`: what `service install` would write, and where. Writes nothing.
    func serviceShow(every: Duration?) throws -> ExitCode {
        let (units, folder) = try serviceUnits(every: every)
        if global.json {
            printJSON(.object([
                ("platform", .string(units.platform.rawValue)),
                ("folder", .string(folder.path)),
                ("files", .array(units.files.map { .object([("path", .string(folder.filePath($0.name))), ("contents", .string($0.contents))]) })),
                ("next", .string(units.enableCommand)),
            ]))
            return .success
        }
        for file in units.files {
            context.console.out("# \(folder.filePath(file.name))")
            context.console.out(file.contents)
        }
        context.console.out("# `gitbay-sync service install` writes these; then run: \(units.enableCommand)")
        return .success
    }

    /// `service install [--every]`: writes the units, all or none.
    func serviceInstall(every: Duration?) throws -> ExitCode {
        let (units, folder) = try serviceUnits(every: every)
        do {
            try folder.writeAll(units.files)
        } catch {
            throw CommandFailure(
                "\(error); nothing was written. Make the folder writable, or set XDG_CONFIG_HOME to a folder of your own",
                exitCode: .stateError
            )
        }
        let paths = units.files.map { folder.filePath($0.name) }
        if global.json {
            printJSON(.object([
                ("platform", .string(units.platform.rawValue)),
                ("written", .array(paths.map(JSONValue.string))),
                ("next", .string(units.enableCommand)),
            ]))
        } else {
            for path in paths { context.console.out("Wrote \(path)") }
            context.console.out("Next, run: \(units.enableCommand)")
        }
        return .success
    }

    /// `service uninstall`: removes the units (and the links `systemctl enable` made).
    func serviceUninstall() throws -> ExitCode {
        let platform = ServiceUnits.Platform.current
        let folder = UnitFolder.resolve(platform, environment: context.environment)
        let names: [String]
        var wantedBy: [String: String] = [:]
        switch platform {
        case .systemd:
            names = [ServiceUnits.serviceName, ServiceUnits.timerName]
            wantedBy = [ServiceUnits.serviceName: "default.target", ServiceUnits.timerName: "timers.target"]
        case .launchd:
            names = [ServiceUnits.launchdLabel + ".plist"]
        }
        let removed: [String]
        do {
            removed = try folder.removeAll(names, wantedBy: wantedBy)
        } catch {
            throw CommandFailure("\(error); fix the folder's permissions and run `gitbay-sync service uninstall` again", exitCode: .stateError)
        }
        let stop = platform == .systemd
            ? "systemctl --user stop \(ServiceUnits.timerName) \(ServiceUnits.serviceName); systemctl --user daemon-reload"
            : "launchctl bootout gui/$(id -u)/\(ServiceUnits.launchdLabel)"
        if global.json {
            printJSON(.object([
                ("platform", .string(platform.rawValue)),
                ("removed", .array(removed.map(JSONValue.string))),
                ("next", .string(stop)),
            ]))
        } else if removed.isEmpty {
            context.console.out("Nothing to remove: no gitbay-sync units in \(folder.path).")
        } else {
            for path in removed { context.console.out("Removed \(path)") }
            context.console.out("If they were running, run: \(stop)")
        }
        return .success
    }

    /// The units for this system, calling this binary, and the folder they go in.
    private func serviceUnits(every: Duration?) throws -> (ServiceUnits, UnitFolder) {
        guard let executable = context.executablePath() else {
            throw CommandFailure("cannot tell where this gitbay-sync binary is; run it by its full path", exitCode: .unavailable)
        }
        if executable.contains("/.build/") {
            context.console.err("Note: the units call \(executable), inside a build folder; install the binary somewhere lasting (e.g. ~/.local/bin) and run `service install` from there.")
        }
        let platform = ServiceUnits.Platform.current
        let home = HomeFolder.path(environment: context.environment)
        let units = ServiceUnits(
            platform: platform, executable: executable, databasePath: explicitDatabasePath(),
            interval: every ?? ServiceUnits.defaultInterval, logPath: home + "/Library/Logs/gitbay-sync.log"
        )
        return (units, UnitFolder.resolve(platform, environment: context.environment))
    }

    /// `--db` (or `$GITBAY_SYNC_DB`), made absolute, since a service starts in another folder
    /// with another environment; nil when the default location is used.
    private func explicitDatabasePath() -> String? {
        guard let given = global.databasePath ?? context.environment["GITBAY_SYNC_DB"].flatMap({ $0.isEmpty ? nil : $0 }) else {
            return nil
        }
        if given.hasPrefix("/") { return given }
        let base = FileManager.default.currentDirectoryPath
        return URL(fileURLWithPath: base).appendingPathComponent(given).standardizedFileURL.path
    }
}
