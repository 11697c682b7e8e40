import GitbaySupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension CommandRunner {
    /// Refuses, changing nothing, when one of the named files is there and was not written by
    /// `service install` (a unit written by hand, or another program's), unless `force`.
    func refuseHandWritten(_ folder: UnitFolder, _ names: [String], force: Bool, doing command: String) throws {
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
    /// folder (`notify`: raising desktop notifications), and the folder they go in.
    func serviceUnits(every: Duration?, notify: Bool = true) throws -> (ServiceUnits, UnitFolder) {
        guard let executable = context.executablePath() else {
            throw CommandFailure("cannot tell where this gitbay-sync binary is; run it by its full path", exitCode: .unavailable)
        }
        if executable.contains("/.build/") {
            context.console.err(
                "Note: the units call \(executable), inside a build folder; install the binary somewhere lasting (e.g. ~/.local/bin) and run `service install` from there."
            )
        }
        let platform = ServiceUnits.Platform.current
        let home = HomeFolder.path(environment: context.environment)
        let units = ServiceUnits(
            platform: platform, executable: executable, databasePath: absoluteDatabasePath(),
            configHome: Self.configHome(environment: context.environment),
            interval: every ?? ServiceUnits.defaultInterval, logPath: home + "/Library/Logs/gitbay-sync.log", notify: notify
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
