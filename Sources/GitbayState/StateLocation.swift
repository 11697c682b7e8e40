import FoundationEssentials
import GitbaySupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where the state database lives, and the file-system rules around it: a folder gitbay-sync
/// creates is 0700, and a folder that was there is left as it is but must be yours; the
/// database is created 0600; the database and its -wal and -shm files are yours and writable
/// by no one else.
package struct StateLocation: Sendable, Equatable {
    /// The database file.
    package let databasePath: String

    package init(databasePath: String) {
        self.databasePath = databasePath
    }

    /// `--db`, else `$GITBAY_SYNC_DB`, else `$XDG_STATE_HOME/gitbay-sync/state.db`, else
    /// `~/.local/state/gitbay-sync/state.db`.
    package static func resolve(explicitPath: String?, environment: [String: String]) -> StateLocation {
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
    package var directory: String { Self.parent(of: databasePath) }

    /// The database and the files SQLite keeps beside it, -wal and -shm.
    package var databaseFiles: [String] { [databasePath, databasePath + "-wal", databasePath + "-shm"] }

    /// Whether the database file exists yet.
    package var databaseExists: Bool { FileManager.default.fileExists(atPath: databasePath) }

    /// Checks the folder, creating it (and any missing parent) 0700 when `creating` allows;
    /// refuses one owned by another user or not writable. A folder that was there keeps its
    /// mode: it may be shared (`/tmp`, a group folder), and its sticky and setgid bits matter
    /// to others. Without `creating`, a missing folder means there is no database.
    func prepareDirectory(creating: Bool) throws(StoreError) {
        var info = stat()
        if stat(directory, &info) != 0 {
            guard errno == ENOENT else { throw .notWritable(path: directory, detail: Self.errnoText()) }
            guard creating else { throw .noDatabase(path: databasePath) }
            try Self.createFolders(directory)
            guard stat(directory, &info) == 0 else { throw .notWritable(path: directory, detail: Self.errnoText()) }
        }
        guard (info.st_mode & S_IFMT) == S_IFDIR else { throw .notWritable(path: directory, detail: "not a folder") }
        guard info.st_uid == geteuid() else { throw .foreignOwner(path: directory, owner: UInt32(info.st_uid)) }
        guard access(directory, W_OK | X_OK) == 0 else { throw .notWritable(path: directory, detail: Self.errnoText()) }
    }

    /// Creates `path` and each missing folder above it with mode 0700 (whatever the umask);
    /// folders that are there are left as they are.
    private static func createFolders(_ path: String) throws(StoreError) {
        var missing: [String] = []
        var current = path
        var info = stat()
        while current != "/", current != ".", stat(current, &info) != 0, errno == ENOENT {
            missing.append(current)
            current = parent(of: current)
        }
        for folder in missing.reversed() {
            if mkdir(folder, 0o700) == 0 {
                guard chmod(folder, 0o700) == 0 else { throw .notWritable(path: folder, detail: errnoText()) }
            } else if errno != EEXIST {
                throw .notWritable(path: folder, detail: "could not create the folder: \(errnoText())")
            }
        }
    }

    /// The folder holding `path`: "." for a bare name, "/" for a name at the root.
    static func parent(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        let parent = String(path[..<slash])
        return parent.isEmpty ? "/" : parent
    }

    /// Refuses a database that is not a regular file, and any of `databaseFiles` that belongs
    /// to another user or that other users can write. Without `creating`, a missing database
    /// is refused as `noDatabase`.
    func checkDatabaseFiles(creating: Bool) throws(StoreError) {
        var info = stat()
        guard stat(databasePath, &info) == 0 else {
            guard errno == ENOENT else { throw .notWritable(path: databasePath, detail: Self.errnoText()) }
            guard creating else { throw .noDatabase(path: databasePath) }
            // No database yet: leftover -wal or -shm files must still be sound.
            try Self.checkOwnership(of: databaseFiles.dropFirst())
            return
        }
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            throw .notADatabase(path: databasePath, detail: "not a regular file")
        }
        try Self.checkOwnership(of: databaseFiles)
        guard access(databasePath, R_OK | W_OK) == 0 else {
            throw .notWritable(path: databasePath, detail: Self.errnoText())
        }
    }

    private static func checkOwnership(of paths: some Sequence<String>) throws(StoreError) {
        var info = stat()
        for path in paths where stat(path, &info) == 0 {
            if let problem = ownershipProblem(info, path: path) { throw problem }
        }
    }

    /// Why one of `databaseFiles` may not be used: another user owns it, or other users can
    /// write it (and so change the accounts, tokens and records). Nil when
    /// neither.
    package static func ownershipProblem(_ info: stat, path: String) -> StoreError? {
        if info.st_uid != geteuid() { return .foreignOwner(path: path, owner: UInt32(info.st_uid)) }
        if info.st_mode & (S_IWGRP | S_IWOTH) != 0 { return .writableByOthers(path: path, mode: UInt32(info.st_mode & 0o7777)) }
        return nil
    }

    /// Creates an empty database file with mode 0600 when none exists, so SQLite (which gives
    /// its -wal and -shm files the database's mode) never makes a readable one.
    func createDatabaseFileIfMissing() throws(StoreError) {
        let descriptor = open(databasePath, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        if descriptor >= 0 {
            // The umask could only have taken bits away; make it exactly 0600.
            fchmod(descriptor, 0o600)
            close(descriptor)
        } else if errno != EEXIST {
            throw .notWritable(path: databasePath, detail: Self.errnoText())
        }
    }

    /// Takes read permission away from group and others on the database and its -wal and
    /// -shm files, which hold API tokens. Write permission for others is refused before this.
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
