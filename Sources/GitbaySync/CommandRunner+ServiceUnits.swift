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

    /// Writes `files` into `folder`, all or none, once the folder is one no one else can
    /// change and no file of those names was written by hand (unless `force`); then notes a
    /// database that is not there yet, which the runs will need.
    func writeServiceFiles(_ files: [ServiceUnits.File], into folder: UnitFolder, force: Bool) throws {
        // Before anything else about the folder: what is in it counts for nothing if others can change it.
        if let problem = folder.trustProblem {
            throw CommandFailure(UnitFolder.Refused(path: folder.path, reason: .unsafe(problem)).description, exitCode: .foreignFile)
        }
        try refuseHandWritten(folder, files.map(\.name), force: force, doing: "install")
        do {
            try folder.writeAll(files)
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
