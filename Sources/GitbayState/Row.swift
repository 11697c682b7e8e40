internal import CSQLite
import GitbaySupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The row a stepped statement stands on, read column by column by name: the name the SELECT
/// gives the column (its alias, where it has one), never its position, so a query may list its
/// columns in any order. Valid only inside the map it is handed to: the statement then steps on.
///
/// A reader throws a `SQLiteError` naming the column and carrying the SQL when the result has
/// no column of that name or more than one, or when the column holds another type than the one
/// asked for (NULL counts as another type except to the optional readers). A query and its
/// reader that disagree fail there, never by a trap or a made-up value. No value read is ever
/// put in the error: it may be a secret.
struct Row {
    private let statement: Statement

    init(_ statement: Statement) {
        self.statement = statement
    }

    /// An INTEGER column that is never NULL.
    func int64(_ name: String) throws(SQLiteError) -> Int64 {
        statement.integer(try column(name, holding: .integer))
    }

    /// An INTEGER column, nil where it is NULL.
    func optionalInt64(_ name: String) throws(SQLiteError) -> Int64? {
        try optionalColumn(name, holding: .integer).map(statement.integer)
    }

    /// An INTEGER column that is never NULL, as an `Int`.
    func int(_ name: String) throws(SQLiteError) -> Int {
        try fitted(try int64(name), name)
    }

    /// An INTEGER column as an `Int`, nil where it is NULL.
    func optionalInt(_ name: String) throws(SQLiteError) -> Int? {
        guard let value = try optionalInt64(name) else { return nil }
        return try fitted(value, name)
    }

    /// An INTEGER column that is never NULL, as a truth value: true unless 0.
    func bool(_ name: String) throws(SQLiteError) -> Bool {
        try int64(name) != 0
    }

    /// A TEXT column that is never NULL.
    func text(_ name: String) throws(SQLiteError) -> String {
        statement.text(try column(name, holding: .text)) ?? ""
    }

    /// A TEXT column that is never NULL, its UTF-8 bytes handed to `body` where SQLite keeps them.
    func withText<Result>(_ name: String, _ body: (UnsafeBufferPointer<UInt8>) -> Result) throws(SQLiteError) -> Result {
        let index = try column(name, holding: .text)
        return statement.withText(index, body)
    }

    /// A TEXT column, nil where it is NULL.
    func optionalText(_ name: String) throws(SQLiteError) -> String? {
        try optionalColumn(name, holding: .text).flatMap(statement.text)
    }

    /// A BLOB column, handed to `body` in place; nil (and `body` not called) where it is NULL.
    func optionalBlob<Result>(_ name: String, _ body: (UnsafeRawBufferPointer) -> Result) throws(SQLiteError) -> Result? {
        guard let index = try optionalColumn(name, holding: .blob) else { return nil }
        return statement.withBlob(index, body)
    }

    /// A time column that is never NULL, as `Timestamp` writes it; the epoch should its text not
    /// parse.
    func date(_ name: String) throws(SQLiteError) -> Date {
        statement.date(try column(name, holding: .text)) ?? Date(timeIntervalSince1970: 0)
    }

    /// A time column, nil where it is NULL or its text does not parse.
    func optionalDate(_ name: String) throws(SQLiteError) -> Date? {
        try optionalColumn(name, holding: .text).flatMap(statement.date)
    }

    /// A TEXT column that is never NULL, as the value of `type` its text is the raw value of.
    func value<Value: RawRepresentable>(_ name: String, as type: Value.Type) throws(SQLiteError) -> Value where Value.RawValue == String {
        guard let value = Value(rawValue: try text(name)) else {
            throw SQLiteError(code: SQLITE_MISMATCH, message: "column \"\(name)\" holds text that is no \(type)", sql: statement.sql)
        }
        return value
    }

    /// A token's identity from the columns named `fingerprint`, `length` and `shown`. A token
    /// recorded before fingerprints were kept has none of them and is known by `prefix`, its
    /// first 8 bytes, only. All three columns must be in the result either way.
    func tokenIdentity(fingerprint: String, length: String, shown: String, prefix: String) throws(SQLiteError) -> TokenIdentity {
        let (digest, length, shown) = (try optionalText(fingerprint), try optionalInt(length), try optionalText(shown))
        guard let digest else { return TokenIdentity(fingerprint: nil, length: nil, shown: prefix) }
        return TokenIdentity(fingerprint: digest, length: length, shown: shown ?? "")
    }

    /// The index of the column named `name`, which must hold `kind` in this row.
    private func column(_ name: String, holding kind: ColumnKind) throws(SQLiteError) -> Int32 {
        guard let index = try optionalColumn(name, holding: kind) else { throw mismatch(name, found: .null, wanted: kind) }
        return index
    }

    /// The index of the column named `name`, which must hold `kind` or NULL in this row; nil for NULL.
    private func optionalColumn(_ name: String, holding kind: ColumnKind) throws(SQLiteError) -> Int32? {
        let index = try statement.columnIndex(named: name)
        let found = ColumnKind(storageClass: statement.columnType(index))
        if found == .null { return nil }
        guard found == kind else { throw mismatch(name, found: found, wanted: kind) }
        return index
    }

    private func fitted(_ value: Int64, _ name: String) throws(SQLiteError) -> Int {
        guard let fitted = Int(exactly: value) else {
            throw SQLiteError(code: SQLITE_MISMATCH, message: "column \"\(name)\" holds an integer too large for Int", sql: statement.sql)
        }
        return fitted
    }

    private func mismatch(_ name: String, found: ColumnKind, wanted: ColumnKind) -> SQLiteError {
        SQLiteError(code: SQLITE_MISMATCH, message: "column \"\(name)\" holds \(found.phrase), not \(wanted.phrase)", sql: statement.sql)
    }
}

/// What a column of a row holds: SQLite's storage classes.
private enum ColumnKind: Equatable {
    case integer, real, text, blob, null

    init(storageClass: Int32) {
        switch storageClass {
        case SQLITE_INTEGER: self = .integer
        case SQLITE_FLOAT: self = .real
        case SQLITE_TEXT: self = .text
        case SQLITE_BLOB: self = .blob
        default: self = .null
        }
    }

    /// The kind in words, for an error.
    var phrase: String {
        switch self {
        case .integer: "an integer"
        case .real: "a real number"
        case .text: "text"
        case .blob: "a blob"
        case .null: "NULL"
        }
    }
}
