internal import CSQLite
import GitbaySupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A value bound to a statement parameter.
enum SQLiteValue {
    case integer(Int64)
    case text(String)
    case blob([UInt8])
    case null

    static func optionalText(_ value: String?) -> SQLiteValue { value.map(SQLiteValue.text) ?? .null }
    static func optionalInteger(_ value: Int64?) -> SQLiteValue { value.map(SQLiteValue.integer) ?? .null }
    static func int(_ value: Int) -> SQLiteValue { .integer(Int64(value)) }
    static func optionalInt(_ value: Int?) -> SQLiteValue { value.map(int) ?? .null }
}

/// A prepared statement that finalizes itself when freed.
final class Statement {
    /// Unowned: the database keeps the statements it reuses.
    private unowned let database: Database
    private let handle: OpaquePointer
    let sql: String

    /// Made by `Database.prepare`, which compiled `handle` from `sql`.
    init(database: Database, handle: OpaquePointer, sql: String) {
        self.database = database
        self.handle = handle
        self.sql = sql
    }

    deinit {
        sqlite3_finalize(handle)
    }

    func bind(_ values: [SQLiteValue]) throws(SQLiteError) {
        for (offset, value) in values.enumerated() {
            let index = Int32(offset + 1)
            let result: Int32
            switch value {
            case .integer(let number):
                result = sqlite3_bind_int64(handle, index, number)
            case .text(let string):
                result = Self.bindText(string, at: index, of: handle)
            case .blob(let bytes):
                // An empty blob has no address; SQLite takes a zero-length blob from any pointer.
                result = bytes.withUnsafeBytes { bytes in
                    sqlite3_bind_blob(handle, index, bytes.baseAddress ?? UnsafeRawPointer(bitPattern: 1), Int32(bytes.count), csqlite_transient())
                }
            case .null:
                result = sqlite3_bind_null(handle, index)
            }
            try database.check(result, sql: sql)
        }
    }

    /// Binds the UTF-8 bytes of `text` in place (SQLite copies them): a C string made from a
    /// Swift string would cost an allocation for each value bound.
    private static func bindText(_ text: String, at index: Int32, of handle: OpaquePointer) -> Int32 {
        var text = text
        return text.withUTF8 { bytes in
            // An empty string has no address; a null pointer would bind NULL, not the empty text.
            let start = bytes.baseAddress ?? ("" as StaticString).utf8Start
            return UnsafeRawPointer(start).withMemoryRebound(to: CChar.self, capacity: max(bytes.count, 1)) { chars in
                sqlite3_bind_text(handle, index, chars, Int32(bytes.count), csqlite_transient())
            }
        }
    }

    /// True while stepped and not yet reset.
    var isBusy: Bool { sqlite3_stmt_busy(handle) != 0 }

    /// Readies the statement to run again: back to its start, its parameters unbound.
    func reset() {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    /// Advances to the next row; false when the statement is done.
    func step() throws(SQLiteError) -> Bool {
        let result = sqlite3_step(handle)
        try database.check(result, sql: sql)
        return result == SQLITE_ROW
    }

    /// The result columns by name, read on the first lookup and kept as long as the statement.
    private var columns: ResultColumns?
    /// The column after the one last looked up.
    private var nextColumn = 0

    /// How many columns a row of the result has.
    var columnCount: Int32 { sqlite3_column_count(handle) }

    /// The index of the result column named `name` (as the SELECT names it: an alias where it
    /// gives one); a `SQLiteError` naming it and the SQL when no column or more than one has it.
    func columnIndex(named name: String) throws(SQLiteError) -> Int32 {
        let columns = self.columns ?? readColumns()
        switch columns.lookUp(name, trying: nextColumn) {
        case .found(let index):
            // Rows are read column after column in one order: the next lookup tries the next one first.
            nextColumn = Int(index) + 1
            return index
        case .missing:
            let names = columns.names.map { "\"\($0)\"" }.joined(separator: ", ")
            throw SQLiteError(code: SQLITE_ERROR, message: "no column named \"\(name)\" in the result (its columns: \(names))", sql: sql)
        case .shared:
            throw SQLiteError(
                code: SQLITE_ERROR, message: "more than one column of the result is named \"\(name)\": give each its own name with AS",
                sql: sql)
        }
    }

    private func readColumns() -> ResultColumns {
        let names = (0..<columnCount).map { index in sqlite3_column_name(handle, index).map { String(cString: $0) } ?? "" }
        let columns = ResultColumns(names: names)
        self.columns = columns
        return columns
    }

    /// The storage class (`SQLITE_INTEGER`, `SQLITE_TEXT`, `SQLITE_NULL`, ...) of a column of
    /// the current row, before any conversion.
    func columnType(_ column: Int32) -> Int32 { sqlite3_column_type(handle, column) }

    /// The integer in a column of the current row, by position (`Row` reads by name).
    func integer(_ column: Int32) -> Int64 { sqlite3_column_int64(handle, column) }

    /// The text of a column of the current row, by position (`Row` reads by name); nil for NULL.
    func text(_ column: Int32) -> String? {
        guard let pointer = sqlite3_column_text(handle, column) else { return nil }
        return String(cString: pointer)
    }

    /// A TEXT column of the current row, its bytes read in place (valid until the next step).
    func withText<Result>(_ column: Int32, _ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result {
        // The text first, then its length: SQLite counts the bytes of the form it last gave.
        let start = sqlite3_column_text(handle, column)
        return body(UnsafeBufferPointer(start: start, count: Int(sqlite3_column_bytes(handle, column))))
    }

    /// A BLOB column of the current row, read in place (valid until the next step).
    func withBlob<Result>(_ column: Int32, _ body: (UnsafeRawBufferPointer) -> Result) -> Result {
        let start = sqlite3_column_blob(handle, column)
        return body(UnsafeRawBufferPointer(start: start, count: Int(sqlite3_column_bytes(handle, column))))
    }

    /// A column of the current row as a time, read from its text's bytes where SQLite keeps
    /// them (valid until the next step): a time has no need of a string first.
    func date(_ column: Int32) -> Date? {
        guard let pointer = sqlite3_column_text(handle, column) else { return nil }
        let count = Int(sqlite3_column_bytes(handle, column))
        return Timestamp.parse(utf8: UnsafeBufferPointer(start: pointer, count: count))
    }
}

/// A statement's result columns: their names in order, and the index of each name one column has.
/// A class: every column a row reads looks it up, and a copy of a struct of an array and a set
/// cost two reference counts each time.
final class ResultColumns: Sendable {
    enum LookUp: Equatable {
        case found(Int32)
        case missing
        /// Two or more columns have the name (an unaliased join, say): none is picked.
        case shared
    }

    let names: [String]
    /// The names more than one column has: found once, as the statement first reads a row.
    let shared: Set<String>

    init(names: [String]) {
        self.names = names
        var seen: Set<String> = []
        shared = Set(names.filter { !seen.insert($0).inserted })
    }

    /// Tries column `hint` first, then scans: a result has a few columns, and comparing the
    /// lengths of their names first costs less than hashing the one looked up.
    func lookUp(_ name: String, trying hint: Int = 0) -> LookUp {
        if !shared.isEmpty, shared.contains(name) { return .shared }
        if hint < names.count, names[hint] == name { return .found(Int32(hint)) }
        let length = name.utf8.count
        for (index, candidate) in names.enumerated() where candidate.utf8.count == length && candidate == name {
            return .found(Int32(index))
        }
        return .missing
    }
}
