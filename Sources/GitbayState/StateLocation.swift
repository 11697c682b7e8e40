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

/// Where the state database lives, and the file-system rules around it: a folder gitbay-sync
/// creates is 0700, and only inside a folder of yours; a folder that was there is left as it
/// is but must be yours; the database is created 0600; the database and its -wal and -shm
/// files are yours and writable by no one else; and none of these paths is a link.
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

    /// Whether anything is at the database's path yet (a link counts: it is refused, not
    /// taken for a missing database).
    package var databaseExists: Bool {
        var info = stat()
        return lstat(databasePath, &info) == 0
    }

    /// Checks the folder, creating it (and any missing parent) 0700 when `creating` allows;
    /// refuses a link, one owned by another user or not writable. A folder that was there keeps
    /// its mode: it may be shared (`/tmp`, a group folder), and its sticky and setgid bits
    /// matter to others. Without `creating`, a missing folder means there is no database.
    func prepareDirectory(creating: Bool) throws(StoreError) {
        var info = stat()
        if lstat(directory, &info) != 0 {
            guard errno == ENOENT else { throw .notWritable(path: directory, detail: Self.errnoText()) }
            guard creating else { throw .noDatabase(path: databasePath) }
            try Self.createFolders(directory)
            guard lstat(directory, &info) == 0 else { throw .notWritable(path: directory, detail: Self.errnoText()) }
        }
        guard (info.st_mode & S_IFMT) != S_IFLNK else { throw .symbolicLink(path: directory) }
        guard (info.st_mode & S_IFMT) == S_IFDIR else { throw .notWritable(path: directory, detail: "not a folder") }
        guard info.st_uid == geteuid() else { throw .foreignOwner(path: directory, owner: UInt32(info.st_uid)) }
        guard access(directory, W_OK | X_OK) == 0 else { throw .notWritable(path: directory, detail: Self.errnoText()) }
    }

    /// Creates `path` and each missing folder above it with mode 0700, only inside a folder of
    /// the effective user's (see `MissingFolders`).
    private static func createFolders(_ path: String) throws(StoreError) {
        do {
            try MissingFolders.create(path)
        } catch {
            switch error {
            case .foreignAncestor(let folder, let ancestor, let owner): throw .foreignFolder(path: folder, ancestor: ancestor, owner: owner)
            case .cannotCreate(let folder, let detail): throw .notWritable(path: folder, detail: detail)
            }
        }
    }

    /// The folder holding `path`: "." for a bare name, "/" for a name at the root.
    static func parent(of path: String) -> String {
        MissingFolders.parent(of: path)
    }

    /// Refuses a database that is not a regular file, and any of `databaseFiles` that is a
    /// link, belongs to another user or that other users can write. Without `creating`, a
    /// missing database is refused as `noDatabase`.
    func checkDatabaseFiles(creating: Bool) throws(StoreError) {
        var info = stat()
        guard lstat(databasePath, &info) == 0 else {
            guard errno == ENOENT else { throw .notWritable(path: databasePath, detail: Self.errnoText()) }
            guard creating else { throw .noDatabase(path: databasePath) }
            // No database yet: leftover -wal or -shm files must still be sound.
            try Self.checkOwnership(of: databaseFiles.dropFirst())
            return
        }
        try Self.checkOwnership(of: databaseFiles)
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            throw .notADatabase(path: databasePath, detail: "not a regular file")
        }
        guard access(databasePath, R_OK | W_OK) == 0 else {
            throw .notWritable(path: databasePath, detail: Self.errnoText())
        }
    }

    private static func checkOwnership(of paths: some Sequence<String>) throws(StoreError) {
        var info = stat()
        for path in paths where lstat(path, &info) == 0 {
            if let problem = ownershipProblem(info, path: path) { throw problem }
        }
    }

    /// Why one of `databaseFiles` (as `lstat` describes it) may not be used: it is a link,
    /// another user owns it, or other users can write it (and so change the accounts, tokens
    /// and records). Nil when none of these.
    package static func ownershipProblem(_ info: stat, path: String) -> StoreError? {
        if (info.st_mode & S_IFMT) == S_IFLNK { return .symbolicLink(path: path) }
        if info.st_uid != geteuid() { return .foreignOwner(path: path, owner: UInt32(info.st_uid)) }
        if info.st_mode & (S_IWGRP | S_IWOTH) != 0 { return .writableByOthers(path: path, mode: UInt32(info.st_mode & 0o7777)) }
        return nil
    }

    /// Creates an empty database file with mode 0600 when none exists, so SQLite (which gives
    /// its -wal and -shm files the database's mode) never makes a readable one. `O_EXCL`
    /// refuses a link there, dangling or not.
    func createDatabaseFileIfMissing() throws(StoreError) {
        let descriptor = open(databasePath, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
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
    /// No link is followed: a link found there (put there since the check) is refused, and the
    /// mode is changed on the file itself, never through a link.
    func tightenFileModes() throws(StoreError) {
        for path in databaseFiles {
            var info = stat()
            guard lstat(path, &info) == 0 else { continue }
            if (info.st_mode & S_IFMT) == S_IFLNK { throw .symbolicLink(path: path) }
            guard (info.st_mode & S_IFMT) == S_IFREG, info.st_uid == geteuid(), info.st_mode & 0o077 != 0 else { continue }
            try Self.makePrivate(path)
        }
    }

    #if os(Linux)
    /// `O_PATH` (Linux's value on every architecture), which Glibc's module does not export.
    private static let pathOnly: Int32 = 0o10_000_000

    /// Sets mode 0600 on the file at `path`, not through a link. Linux has no chmod that
    /// refuses a link, and a plain descriptor will not do: closing any descriptor of a file
    /// drops every POSIX lock this process holds on it, SQLite's included (another connection
    /// of this process may hold the database). An `O_PATH` descriptor holds no such locks, and
    /// /proc/self/fd names the very file it was opened on.
    private static func makePrivate(_ path: String) throws(StoreError) {
        let descriptor = open(path, pathOnly | O_NOFOLLOW | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { return }
        // With O_PATH, O_NOFOLLOW opens a link itself rather than failing.
        if (info.st_mode & S_IFMT) == S_IFLNK { throw .symbolicLink(path: path) }
        guard (info.st_mode & S_IFMT) == S_IFREG, info.st_uid == geteuid() else { return }
        chmod("/proc/self/fd/\(descriptor)", 0o600)
    }
    #else
    /// Sets mode 0600 on the file at `path`, not through a link (a link put there since the
    /// check gets the mode itself, which changes nothing).
    private static func makePrivate(_ path: String) throws(StoreError) {
        fchmodat(AT_FDCWD, path, 0o600, AT_SYMLINK_NOFOLLOW)
    }
    #endif

    static func errnoText() -> String {
        String(cString: strerror(errno))
    }
}
