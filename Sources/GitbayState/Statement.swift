internal import CSQLite

/// A value bound to a statement parameter.
enum SQLiteValue {
    case integer(Int64)
    case text(String)
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

    func isNull(_ column: Int32) -> Bool { sqlite3_column_type(handle, column) == SQLITE_NULL }

    func integer(_ column: Int32) -> Int64 { sqlite3_column_int64(handle, column) }

    func optionalInteger(_ column: Int32) -> Int64? { isNull(column) ? nil : integer(column) }

    func text(_ column: Int32) -> String? {
        guard let pointer = sqlite3_column_text(handle, column) else { return nil }
        return String(cString: pointer)
    }

    /// A text column declared NOT NULL.
    func requiredText(_ column: Int32) -> String { text(column) ?? "" }
}
