/// Why the state database cannot be opened or used. Each case names the path and the fix.
package enum StoreError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file exists but is not a SQLite database (or is corrupt).
    case notADatabase(path: String, detail: String)
    /// The database holds migrations this binary does not know: it was written by a newer one.
    case newerSchema(path: String, unknownVersions: [Int])
    /// A recorded migration's checksum differs from the one built into this binary.
    case changedMigration(path: String, version: Int, name: String)
    /// The state directory or database belongs to another user.
    case foreignOwner(path: String, owner: UInt32)
    /// Other users can write the database or a file beside it (-wal, -shm).
    case writableByOthers(path: String, mode: UInt32)
    /// The database, its -wal or -shm file or its folder is a symbolic link: none is followed,
    /// since whoever made it chooses which file is written and chmodded.
    case symbolicLink(path: String)
    /// The folder is missing and the nearest folder above it that is there is another user's
    /// (`HOME` still theirs under `sudo -E`): nothing is created in it.
    case foreignFolder(path: String, ancestor: String, owner: UInt32)
    /// There is no database at the path, and the command does not create one (it only reads
    /// one, or it is `run`).
    case noDatabase(path: String)
    /// The state directory or database cannot be created or written.
    case notWritable(path: String, detail: String)
    /// Another process held the database locked for longer than the store waits; nothing
    /// was changed, and trying again later works.
    case busy(path: String)
    /// Any other SQLite failure.
    case sqlite(SQLiteError, path: String)

    /// `.busy` for a locked database, else `.sqlite`.
    static func from(_ error: SQLiteError, path: String) -> StoreError {
        // SQLITE_BUSY (5) and SQLITE_LOCKED (6), in any of their extended forms.
        [5, 6].contains(error.primaryCode) ? .busy(path: path) : .sqlite(error, path: path)
    }

    /// What is wrong and what fixes it, in words that name no program and none of its
    /// options: `description(program:)` names the program that writes such files, and a
    /// caller adds its own fixes (the command line: another `--db`).
    package var description: String { description(program: nil) }

    /// The same, naming `program` (`gitbay-sync`, an app) where the file's writer is meant:
    /// a newer one, the one that wrote it, another one holding the lock.
    package func description(program: String?) -> String {
        switch self {
        case .notADatabase(let path, let detail):
            "\(path) is not a \(program ?? "device-registration") state database (\(detail)); move it aside"
        case .newerSchema(let path, let versions):
            "\(path) was written by a newer \(program ?? "version") (schema migration \(versions.map(String.init).joined(separator: ", ")) is unknown to this one). The file was not changed; upgrade"
        case .changedMigration(let path, let version, let name):
            "\(path) records migration \(version) (\(name)) with a different checksum than this build; the database and this binary disagree on the schema. The file was not changed; use the \(program ?? "version") that wrote it"
        case .foreignOwner(let path, let owner):
            "\(path) belongs to user id \(owner), not to you; use it as that user"
        case .writableByOthers(let path, let mode):
            "\(path) can be written by other users (mode \(String(mode, radix: 8))), so it is not used: the state database holds API tokens. Nothing was changed; make it yours alone with `chmod 600 \(path)`"
        case .symbolicLink(let path):
            "\(path) is a symbolic link, and none is followed at the state database, its -wal and -shm files or its folder: whoever made it would choose which file is written. Nothing was changed; if you did not make the link, remove it (`rm \(path)`)"
        case .foreignFolder(let path, let ancestor, let owner):
            "cannot create \(path): \(ancestor) belongs to user id \(owner), not to you, and no folder is created in another user's. Nothing was created. Under sudo, `sudo -H` sets HOME to the target user's own home (with `sudo -E` it stays the calling user's)"
        case .noDatabase(let path):
            "no state database at \(path); nothing was created"
        case .notWritable(let path, let detail):
            "cannot write \(path) (\(detail)); fix its permissions"
        case .busy(let path):
            "the state database \(path) is locked by another process (another \(program ?? "run"), or a tool with it open) and stayed locked while this one waited; nothing was changed. Try again in a moment"
        case .sqlite(let error, let path):
            "state database \(path): \(error.message) (SQLite code \(error.code))"
        }
    }
}
