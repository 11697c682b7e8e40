import GitbaySupport

extension CommandRunner {
    /// `service install --autostart`: writes the XDG autostart entry, into a folder no one
    /// else can change; a file of that name `service install` did not write is left alone
    /// unless `force`.
    func autostartInstall(every: Duration?, force: Bool, notify: Bool) throws -> ExitCode {
        guard let executable = context.executablePath() else {
            throw CommandFailure("cannot tell where this gitbay-sync binary is; run it by its full path", exitCode: .unavailable)
        }
        let interval = every ?? ServiceUnits.defaultInterval
        guard let entry = AutostartEntry(executable: executable, databasePath: absoluteDatabasePath(), interval: interval, notify: notify) else {
            throw CommandFailure(
                "the binary's path or the database's holds a control character, which an autostart entry cannot carry; nothing was written",
                exitCode: .dataError)
        }
        let folder = AutostartEntry.folder(environment: context.environment)
        try writeServiceFiles([entry.file], into: folder, force: force)
        let path = folder.filePath(AutostartEntry.fileName)
        let period = IntervalParser.format(interval)
        show(
            ReportedOutput(
                json: .object([
                    ("platform", .string("autostart")),
                    ("written", .array([.string(path)])),
                    ("enabled", .bool(true)),
                    ("next", .null),
                ]),
                text: [
                    "Wrote \(path)",
                    "From your next login, the desktop session starts `gitbay-sync run --every \(period)`, which runs while the session lasts; to start it now, run it yourself.",
                    "Its output goes where the session sends what the programs it starts write (`journalctl --user` on most desktops, else ~/.xsession-errors); `gitbay-sync status --history` lists its runs.",
                ]
            ))
        return .success
    }
}
