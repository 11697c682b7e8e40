import FoundationEssentials
import GitbaySupport

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

    /// `service install [--every] [--force]`: writes the units, all or none. A file of the same
    /// name that `service install` did not write is left alone unless `force`.
    func serviceInstall(every: Duration?, force: Bool) throws -> ExitCode {
        let (units, folder) = try serviceUnits(every: every)
        try refuseHandWritten(folder, units.files.map(\.name), force: force, doing: "install")
        do {
            try folder.writeAll(units.files)
        } catch {
            throw CommandFailure(
                "\(error); nothing was written. Make the folder writable, or set XDG_CONFIG_HOME to a folder of your own",
                exitCode: .stateError
            )
        }
        if !location.databaseExists {
            context.console.err("Note: there is no state database at \(absoluteDatabasePath()) yet; the service's runs fail (exit 66) until you sign in: `gitbay-sync login <instance-url>`.")
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

    /// `service uninstall [--force]`: removes the units (and the links `systemctl enable` made).
    /// A file of the same name that `service install` did not write is left alone, and then
    /// nothing is removed, unless `force`.
    func serviceUninstall(force: Bool) throws -> ExitCode {
        let platform = ServiceUnits.Platform.current
        let folder = UnitFolder.resolve(platform, environment: context.environment)
        let files = ServiceUnits.fileNames(platform)
        let names = files.map(\.name)
        let wantedBy = Dictionary(uniqueKeysWithValues: files.compactMap { file in file.wantedBy.map { (file.name, $0) } })
        try refuseHandWritten(folder, names, force: force, doing: "uninstall")
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

    /// Refuses, changing nothing, when one of the named files is there and was not written by
    /// `service install` (a unit written by hand, or another program's), unless `force`.
    private func refuseHandWritten(_ folder: UnitFolder, _ names: [String], force: Bool, doing command: String) throws {
        let foreign = folder.handWritten(names)
        guard !foreign.isEmpty, !force else { return }
        let what = foreign.count == 1 ? "\(foreign[0]) was" : "\(foreign.joined(separator: " and ")) were"
        let verb = command == "install" ? "replace" : "remove"
        throw CommandFailure(
            "\(what) not written by `gitbay-sync service install` (no \"\(ServiceUnits.header)\" line at the top), so nothing was \(command == "install" ? "written" : "removed"). Move \(foreign.count == 1 ? "it" : "them") aside, or run `gitbay-sync service \(command) --force` to \(verb) \(foreign.count == 1 ? "it" : "them")",
            exitCode: .foreignFile
        )
    }

    /// The units for this system, calling this binary with this shell's database and config
    /// folder, and the folder they go in.
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
            platform: platform, executable: executable, databasePath: absoluteDatabasePath(),
            configHome: Self.configHome(environment: context.environment),
            interval: every ?? ServiceUnits.defaultInterval, logPath: home + "/Library/Logs/gitbay-sync.log"
        )
        return (units, UnitFolder.resolve(platform, environment: context.environment))
    }

    /// The database this shell uses (`--db`, `$GITBAY_SYNC_DB`, `$XDG_STATE_HOME` or the
    /// default), made absolute: a service starts in another folder with another environment.
    func absoluteDatabasePath() -> String {
        Self.absolute(location.databasePath)
    }

    /// `path` made absolute against the current folder.
    static func absolute(_ path: String) -> String {
        if path.hasPrefix("/") { return path }
        let base = FileManager.default.currentDirectoryPath
        return URL(fileURLWithPath: base).appendingPathComponent(path).standardizedFileURL.path
    }

    /// `$XDG_CONFIG_HOME` when it is an absolute path, else `~/.config`: where the pre-remove
    /// hook is looked for (see `PreRemovalHook.path`).
    static func configHome(environment: [String: String]) -> String {
        if let config = environment["XDG_CONFIG_HOME"], config.hasPrefix("/") { return config }
        return HomeFolder.path(environment: environment) + "/.config"
    }
}
