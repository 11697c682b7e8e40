internal import CSQLite

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One SQLite connection.
///
/// Not thread-safe by itself: the `StateStore` actor confines every use to its serial queue.
final class Database {
    /// The raw connection; valid from a successful `init` until `deinit`.
    private let handle: OpaquePointer
    /// The path the connection was opened on.
    let path: String
    /// What the connection has done since it opened.
    private(set) var counters = DatabaseCounters()
    /// Statements compiled once and run again, with their SQL. Found by a scan that compares
    /// lengths first: a program runs a few dozen statements, nearly all from literals that
    /// compare equal at once, where a dictionary would hash every byte of the SQL per use.
    private var cache: [(sql: String, statement: Statement)] = []
    /// Where in `cache` the statement last taken is.
    private var recent = 0

    /// How opening treats a missing file.
    enum OpenMode {
        case readWriteCreate
        case readWrite
    }

    init(path: String, mode: OpenMode = .readWriteCreate, busyTimeoutMilliseconds: Int32 = 5_000) throws(SQLiteError) {
        var connection: OpaquePointer?
        var flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE
        if mode == .readWriteCreate { flags |= SQLITE_OPEN_CREATE }
        let result = sqlite3_open_v2(path, &connection, flags, nil)
        guard result == SQLITE_OK, let connection else {
            let message = connection.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            if let connection { sqlite3_close_v2(connection) }
            throw SQLiteError(code: result, message: message)
        }
        self.handle = connection
        self.path = path
        sqlite3_extended_result_codes(connection, 1)
        sqlite3_busy_timeout(connection, busyTimeoutMilliseconds)
    }

    deinit {
        cache.removeAll()
        sqlite3_close_v2(handle)
    }

    /// Turns a result code into a thrown error, reading SQLite's message at the failure site.
    func check(_ result: Int32, sql: String? = nil) throws(SQLiteError) {
        switch result {
        case SQLITE_OK, SQLITE_ROW, SQLITE_DONE:
            return
        default:
            throw SQLiteError(code: sqlite3_extended_errcode(handle), message: String(cString: sqlite3_errmsg(handle)), sql: sql)
        }
    }

    /// Runs one or more statements that bind nothing and return nothing of interest.
    func execute(_ sql: String) throws(SQLiteError) {
        counters.statements += 1
        try check(sqlite3_exec(handle, sql, nil, nil, nil), sql: sql)
    }

    /// Compiles one statement.
    func prepare(_ sql: String) throws(SQLiteError) -> Statement {
        var statement: OpaquePointer?
        try check(sqlite3_prepare_v2(handle, sql, -1, &statement, nil), sql: sql)
        guard let statement else {
            preconditionFailure("no statement in SQL: \(sql)")
        }
        counters.statements += 1
        return Statement(database: self, handle: statement, sql: sql)
    }

    /// The statement for `sql`, compiled on first use and kept for the next; bound to
    /// `arguments`. The caller resets it when done, so that it holds no read open.
    private func cached(_ sql: String, _ arguments: [SQLiteValue]) throws(SQLiteError) -> Statement {
        let statement: Statement
        // A statement still stepping (a query run from inside another's rows) is not taken.
        let count = sql.utf8.count
        let same = { (entry: (sql: String, statement: Statement)) in entry.sql.utf8.count == count && entry.sql == sql }
        // A loop runs one statement again and again: the last one taken is tried first.
        let index = recent < cache.count && same(cache[recent]) ? recent : cache.firstIndex(where: same)
        recent = index ?? cache.count
        if let index, !cache[index].statement.isBusy {
            statement = cache[index].statement
            counters.statements += 1
        } else {
            statement = try prepare(sql)
            if let index { cache[index].statement = statement } else { cache.append((sql, statement)) }
        }
        try statement.bind(arguments)
        return statement
    }

    /// Runs a statement with its arguments and returns nothing.
    func run(_ sql: String, _ arguments: SQLiteValue...) throws(SQLiteError) {
        let statement = try cached(sql, arguments)
        defer { statement.reset() }
        while try statement.step() {}
    }

    /// Runs a query and maps every row, each read by column name (`Row`).
    func rows<T>(_ sql: String, _ arguments: SQLiteValue..., map: (Row) throws(SQLiteError) -> T) throws(SQLiteError) -> [T] {
        try rows(sql, bound: arguments, map: map)
    }

    /// Runs a query with its arguments as an array and maps every row.
    func rows<T>(_ sql: String, bound arguments: [SQLiteValue], map: (Row) throws(SQLiteError) -> T) throws(SQLiteError) -> [T] {
        let statement = try cached(sql, arguments)
        defer { statement.reset() }
        var result: [T] = []
        while try statement.step() {
            result.append(try map(Row(statement)))
        }
        return result
    }

    /// Runs a query and maps its first row, if any, read by column name (`Row`).
    func row<T>(_ sql: String, _ arguments: SQLiteValue..., map: (Row) throws(SQLiteError) -> T) throws(SQLiteError) -> T? {
        try row(sql, bound: arguments, map: map)
    }

    /// Runs a query with its arguments as an array and maps its first row, if any.
    func row<T>(_ sql: String, bound arguments: [SQLiteValue], map: (Row) throws(SQLiteError) -> T) throws(SQLiteError) -> T? {
        let statement = try cached(sql, arguments)
        defer { statement.reset() }
        guard try statement.step() else { return nil }
        return try map(Row(statement))
    }

    /// Runs `body` inside `BEGIN IMMEDIATE` … `COMMIT`, rolling back when it throws.
    func transaction<T>(_ body: () throws -> T) throws -> T {
        try execute("BEGIN IMMEDIATE")
        counters.writeTransactions += 1
        do {
            let value = try body()
            try execute("COMMIT")
            return value
        } catch {
            try? execute("ROLLBACK")
            throw error
        }
    }

    /// Runs `body` inside one read transaction (`BEGIN` … `COMMIT`, taking no write lock), so
    /// that every query in it sees the same state.
    func reading<T>(_ body: () throws -> T) throws -> T {
        try execute("BEGIN")
        defer { try? execute("COMMIT") }
        return try body()
    }

    /// The connection's version of the database now. Inside a write transaction the
    /// transaction itself is not counted, so that it compares with a version read before it.
    func version(insideWrite: Bool = false) throws(SQLiteError) -> DatabaseVersion {
        let commits = try row("PRAGMA data_version") { row throws(SQLiteError) in try row.int64("data_version") } ?? 0
        return DatabaseVersion(othersCommits: commits, ownWrites: counters.writeTransactions - (insideWrite ? 1 : 0))
    }

    /// How many rows the last insert, update or delete changed.
    var changes: Int { Int(sqlite3_changes(handle)) }

    /// The rowid of the last insert.
    var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(handle) }

    /// Reads the one value of a pragma or query of one column, as SQLite's text of it; nil when
    /// there is no row or the value is NULL.
    func scalarText(_ sql: String) throws(SQLiteError) -> String? {
        let statement = try cached(sql, [])
        defer { statement.reset() }
        guard try statement.step() else { return nil }
        guard statement.columnCount == 1 else {
            throw SQLiteError(code: SQLITE_ERROR, message: "expected one column, the result has \(statement.columnCount)", sql: sql)
        }
        return statement.text(0)
    }

}

/// What a connection has seen of the database: commits by other connections (`PRAGMA
/// data_version`, which changes with each) and its own write transactions. Two equal versions
/// of one connection mean the database did not change between them.
package struct DatabaseVersion: Sendable, Equatable {
    let othersCommits: Int64
    let ownWrites: Int
}

/// What a connection has done since it opened.
package struct DatabaseCounters: Sendable, Equatable {
    /// `BEGIN IMMEDIATE` transactions begun (each a write to the files once committed).
    package var writeTransactions = 0
    /// Statements run, compiled or kept.
    package var statements = 0
}
