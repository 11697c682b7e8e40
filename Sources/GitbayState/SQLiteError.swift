/// A failure reported by SQLite: the extended result code, SQLite's message and the SQL that
/// failed. Bound values are never carried, so a secret bound to a statement cannot leak here.
package struct SQLiteError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The extended result code (`sqlite3_extended_errcode`).
    package let code: Int32
    /// SQLite's own message for the failure.
    package let message: String
    /// The statement's SQL text, when the failure belongs to one.
    package let sql: String?

    package init(code: Int32, message: String, sql: String? = nil) {
        self.code = code
        self.message = message
        self.sql = sql
    }

    /// The primary result code (the low byte of the extended one).
    package var primaryCode: Int32 { code & 0xFF }

    package var description: String {
        var text = "SQLite error \(code): \(message)"
        if let sql { text += " (in: \(sql))" }
        return text
    }
}
