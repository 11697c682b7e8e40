import FoundationEssentials
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where the state database lives, and the file-system rules around it: the directory is
/// 0700, the database 0600, both owned by the user running gitbay-sync.
public struct StateLocation: Sendable, Equatable {
    /// The database file.
    public let databasePath: String

    public init(databasePath: String) {
        self.databasePath = databasePath
    }

    /// `--db`, else `$GITBAY_SYNC_DB`, else `$XDG_STATE_HOME/gitbay-sync/state.db`, else
    /// `~/.local/state/gitbay-sync/state.db`.
    public static func resolve(explicitPath: String?, environment: [String: String]) -> StateLocation {
        if let explicitPath, !explicitPath.isEmpty { return StateLocation(databasePath: explicitPath) }
        if let path = environment["GITBAY_SYNC_DB"], !path.isEmpty { return StateLocation(databasePath: path) }
        let stateHome: String
        if let xdg = environment["XDG_STATE_HOME"], xdg.hasPrefix("/") {
            stateHome = xdg
        } else {
            stateHome = HomeFolder.path(environment: environment) + "/.local/state"
        }
        return StateLocation(databasePath: stateHome + "/gitbay-sync/state.db")
    }

    /// The folder holding the database.
    public var directory: String {
        guard let slash = databasePath.lastIndex(of: "/") else { return "." }
        let parent = String(databasePath[..<slash])
        return parent.isEmpty ? "/" : parent
    }

    /// The lock file beside the database.
    public var lockPath: String { databasePath + ".lock" }

    /// Whether the database file exists yet.
    public var databaseExists: Bool { FileManager.default.fileExists(atPath: databasePath) }

    /// Creates the directory (0700) when missing, refuses one owned by another user or not
    /// writable, and tightens a looser mode. Creates nothing else.
    func prepareDirectory() throws(StoreError) {
        var info = stat()
        if stat(directory, &info) != 0 {
            guard errno == ENOENT else { throw .notWritable(path: directory, detail: Self.errnoText()) }
            do {
                try FileManager.default.createDirectory(
                    atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700]
                )
            } catch {
                throw .notWritable(path: directory, detail: "could not create the folder")
            }
            guard stat(directory, &info) == 0 else { throw .notWritable(path: directory, detail: Self.errnoText()) }
        }
        guard (info.st_mode & S_IFMT) == S_IFDIR else { throw .notWritable(path: directory, detail: "not a folder") }
        guard info.st_uid == geteuid() else { throw .foreignOwner(path: directory, owner: UInt32(info.st_uid)) }
        guard access(directory, W_OK | X_OK) == 0 else { throw .notWritable(path: directory, detail: Self.errnoText()) }
        if info.st_mode & 0o077 != 0 {
            guard chmod(directory, 0o700) == 0 else { throw .notWritable(path: directory, detail: Self.errnoText()) }
        }
    }

    /// Refuses a database file owned by another user, or one that is not a regular file.
    func checkDatabaseFile() throws(StoreError) {
        var info = stat()
        guard stat(databasePath, &info) == 0 else { return }
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            throw .notADatabase(path: databasePath, detail: "not a regular file")
        }
        guard info.st_uid == geteuid() else { throw .foreignOwner(path: databasePath, owner: UInt32(info.st_uid)) }
        guard access(databasePath, R_OK | W_OK) == 0 else {
            throw .notWritable(path: databasePath, detail: Self.errnoText())
        }
    }

    /// Creates an empty database file with mode 0600 when none exists, so SQLite (which gives
    /// its -wal and -shm files the database's mode) never makes a readable one.
    func createDatabaseFileIfMissing() throws(StoreError) {
        let descriptor = open(databasePath, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        if descriptor >= 0 {
            close(descriptor)
        } else if errno != EEXIST {
            throw .notWritable(path: databasePath, detail: Self.errnoText())
        }
    }

    /// Sets the database and its companion files to 0600 when they are looser.
    func tightenFileModes() {
        for path in [databasePath, databasePath + "-wal", databasePath + "-shm"] {
            var info = stat()
            if stat(path, &info) == 0, info.st_mode & 0o077 != 0 {
                chmod(path, 0o600)
            }
        }
    }

    static func errnoText() -> String {
        String(cString: strerror(errno))
    }
}
