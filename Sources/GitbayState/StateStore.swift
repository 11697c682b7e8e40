internal import CSQLite
import GitbaySupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The state database: accounts, their API tokens, the device, registrations and outcomes.
///
/// An actor whose executor is its own serial dispatch queue, so every blocking SQLite call
/// runs there and never on a cooperative thread.
package actor StateStore {
    private let executor: QueueExecutor
    private let database: Database
    package nonisolated let location: StateLocation
    /// The machine the install is bound to on this open; nil when none was given or read.
    package nonisolated let machine: MachineIdentity?
    /// True when this open found the database made on another machine and made it a new
    /// install here (`StateStore+Machine`): the command that opened it says so.
    package nonisolated let movedHere: Bool

    package nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    private init(executor: QueueExecutor, database: Database, location: StateLocation, machine: MachineIdentity?, movedHere: Bool) {
        self.executor = executor
        self.database = database
        self.location = location
        self.machine = machine
        self.movedHere = movedHere
    }

    /// Opens (creating when missing) and migrates the database at `location`, for a command
    /// that changes the state.
    ///
    /// A database that is not SQLite, was written by a newer binary, records a changed
    /// migration, belongs to another user or that other users can write is refused and left
    /// unchanged. With `machine`, the install is bound to it: a database made on another
    /// machine becomes a new install here (`movedHere`). Without, nothing is bound or checked.
    package static func open(_ location: StateLocation, now: Date = Date(), machine: MachineIdentity? = nil) async throws -> StateStore {
        try await open(location, creating: true, now: now, machine: machine)
    }

    /// Opens and migrates the database at `location` only when it exists, for a command that
    /// reads the state: throws `StoreError.noDatabase` and creates nothing (no folder, no
    /// file) when it does not. Refuses what `open` refuses.
    package static func openExisting(_ location: StateLocation, now: Date = Date(), machine: MachineIdentity? = nil) async throws -> StateStore {
        try await open(location, creating: false, now: now, machine: machine)
    }

    private static func open(_ location: StateLocation, creating: Bool, now: Date, machine: MachineIdentity?) async throws -> StateStore {
        let executor = QueueExecutor(label: "gitbay-sync.state")
        let opened = try await executor.run {
            let database = try openDatabase(location, creating: creating, now: now)
            do {
                try canonicaliseInstances(database)
                return (OpenedDatabase(database), try bind(database, to: machine, now: now))
            } catch let error as SQLiteError {
                throw StoreError.from(error, path: location.databasePath)
            }
        }
        return StateStore(executor: executor, database: opened.0.database, location: location, machine: machine, movedHere: opened.1)
    }

    private static func openDatabase(_ location: StateLocation, creating: Bool, now: Date) throws -> Database {
        try location.prepareDirectory(creating: creating)
        try location.checkDatabaseFiles(creating: creating)
        if creating { try location.createDatabaseFileIfMissing() }
        let path = location.databasePath
        let database: Database
        do {
            database = try Database(path: path, mode: .readWrite)
            // A read that fails here means the file is not a database; nothing was written yet.
            _ = try database.scalarText("PRAGMA schema_version")
        } catch {
            if error.primaryCode == SQLITE_NOTADB || error.primaryCode == SQLITE_CORRUPT {
                throw StoreError.notADatabase(path: path, detail: error.message)
            }
            throw StoreError.from(error, path: path)
        }
        do {
            let migrator = Migrator()
            let recorded = try migrator.validate(database)
            try location.tightenFileModes()
            let journal = try database.scalarText("PRAGMA journal_mode = WAL")
            guard journal?.lowercased() == "wal" else {
                throw StoreError.notWritable(path: path, detail: "SQLite could not switch it to WAL mode (got \(journal ?? "nothing"))")
            }
            try database.execute("PRAGMA foreign_keys = ON")
            // Deleted tokens must not linger in freed pages.
            try database.execute("PRAGMA secure_delete = ON")
            try database.execute("PRAGMA synchronous = NORMAL")
            // Another process migrating meanwhile is met inside each migration's transaction.
            try migrator.migrate(database, now: Timestamp.format(now), validated: recorded)
            try location.tightenFileModes()
            return database
        } catch let error as SQLiteError {
            if error.primaryCode == SQLITE_NOTADB || error.primaryCode == SQLITE_CORRUPT {
                throw StoreError.notADatabase(path: path, detail: error.message)
            }
            throw StoreError.from(error, path: path)
        }
    }

    /// Runs `body` against the connection, mapping SQLite failures to `StoreError`.
    func access<T>(_ body: (Database) throws -> T) throws -> T {
        do {
            return try body(database)
        } catch let error as SQLiteError {
            throw StoreError.from(error, path: location.databasePath)
        }
    }

    /// Runs `body` in one `BEGIN IMMEDIATE` transaction.
    func write<T>(_ body: (Database) throws -> T) throws -> T {
        try access { database in try database.transaction { try body(database) } }
    }

    /// What the connection has done since it opened: write transactions and statements.
    package func databaseCounters() -> DatabaseCounters {
        database.counters
    }

    /// `PRAGMA integrity_check`: "ok", or SQLite's findings.
    package func integrityCheck() throws -> [String] {
        try access { database in try database.rows("PRAGMA integrity_check") { row throws(SQLiteError) in try row.text("integrity_check") } }
    }

    /// The versions of the applied migrations.
    package func appliedMigrations() throws -> [Int] {
        try access { database in try Migrator.recorded(in: database).keys.sorted() }
    }

    /// Moves every WAL frame into the database and truncates the WAL, so deleted secrets do
    /// not survive in it. Another connection's read keeps the frames it may still read: SQLite
    /// waits for it as long as the busy timeout, and false means the checkpoint could not
    /// complete then (what it could not move leaves at a later checkpoint).
    @discardableResult
    package func checkpoint() throws -> Bool {
        // The pragma's row is (busy, frames in the WAL, frames moved); busy is 1 when a reader
        // or a writer held it back.
        try access { database in try database.row("PRAGMA wal_checkpoint(TRUNCATE)") { row throws(SQLiteError) in try row.int64("busy") } == 0 }
    }
}

/// Carries a freshly opened connection from the store's queue to the actor that owns it.
/// The connection is used by nothing else in between, so no state is shared.
private struct OpenedDatabase: @unchecked Sendable {
    let database: Database
    init(_ database: Database) { self.database = database }
}
