import Foundation
import GitbaySupport
import TestSupport
import Testing

@testable import GitbayState

/// A column a reader asks for and the query does not give, or gives in another type, is a
/// `SQLiteError` naming it and the SQL: never a trap, never a value made up.
@Suite("Reading a row by column name")
struct RowTests {
    /// A database of one table `t` (id INTEGER, word TEXT) holding (7, 'seven').
    final class Table {
        let folder: TemporaryDirectory
        let database: Database

        init() throws {
            folder = try TemporaryDirectory()
            database = try Database(path: folder.file("row.db"))
            try database.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, word TEXT) STRICT; INSERT INTO t VALUES (7, 'seven')")
        }
    }

    @Test("a record whose query leaves out one of its columns fails naming that column", arguments: RecordKind.allCases)
    func missingColumn(_ kind: RecordKind) throws {
        let store = try RecordDatabase()
        for left in kind.columns {
            let sql = "SELECT \(kind.columns.filter { $0 != left }.joined(separator: ", ")) FROM \(kind.table)"
            let error = #expect(throws: SQLiteError.self, "without \(left)") {
                try store.database.row(sql) { row throws(SQLiteError) in try kind.decode(row) }
            }
            #expect(error?.message.hasPrefix("no column named \"\(left)\" in the result") == true, "\(error?.message ?? "no error")")
            #expect(error?.sql == sql)
        }
    }

    @Test("a column of another type than the reader's, or NULL where none may be, fails naming the column")
    func mistypedColumn() throws {
        let table = try Table()
        let sql = "SELECT word, NULL AS empty, 1.5 AS real, id FROM t"
        let cases: [(String, (Row) throws(SQLiteError) -> Void)] = [
            ("column \"word\" holds text, not an integer", { row throws(SQLiteError) in _ = try row.int64("word") }),
            ("column \"id\" holds an integer, not text", { row throws(SQLiteError) in _ = try row.text("id") }),
            ("column \"empty\" holds NULL, not text", { row throws(SQLiteError) in _ = try row.text("empty") }),
            ("column \"empty\" holds NULL, not an integer", { row throws(SQLiteError) in _ = try row.int("empty") }),
            ("column \"real\" holds a real number, not text", { row throws(SQLiteError) in _ = try row.optionalDate("real") }),
            (
                "column \"word\" holds text that is no Trigger",
                { row throws(SQLiteError) in _ = try row.value("word", as: UnattendedRunRecord.Trigger.self) }
            ),
        ]
        for (message, read) in cases {
            let error = #expect(throws: SQLiteError.self) { try table.database.row(sql, map: read) }
            #expect(error?.message == message)
            #expect(error?.sql == sql)
        }
    }

    @Test("a column the result does not have fails naming it and the columns it has")
    func absentColumn() throws {
        let table = try Table()
        let sql = "SELECT id, word AS label FROM t"
        let error = #expect(throws: SQLiteError.self) {
            try table.database.row(sql) { row throws(SQLiteError) in try row.text("word") }
        }
        #expect(error?.message == "no column named \"word\" in the result (its columns: \"id\", \"label\")")
        #expect(error?.sql == sql)
    }

    @Test("a name two columns share is not taken for either: the query must give them names of their own")
    func sharedName() throws {
        let table = try Table()
        let sql = "SELECT a.id, b.id FROM t a, t b"
        let error = #expect(throws: SQLiteError.self) { try table.database.row(sql) { row throws(SQLiteError) in try row.int64("id") } }
        #expect(error?.message == "more than one column of the result is named \"id\": give each its own name with AS")
        let aliased = try table.database.row("SELECT a.id AS first_id, b.word AS second_word FROM t a, t b") { row throws(SQLiteError) in
            (try row.int64("first_id"), try row.text("second_word"))
        }
        #expect(aliased?.0 == 7 && aliased?.1 == "seven")
    }

    @Test("the optional readers give nil for NULL; a statement run again finds its columns by the names it read first")
    func optionalsAndReuse() throws {
        let table = try Table()
        let sql = "SELECT NULL AS none, ? AS count, word FROM t"
        for round in 1...2 {
            let read = try table.database.row(sql, .int(round)) { row throws(SQLiteError) in
                (try row.optionalText("none"), try row.optionalInt("none"), try row.optionalDate("none"), try row.int("count"), try row.text("word"))
            }
            #expect(read?.0 == nil && read?.1 == nil && read?.2 == nil)
            #expect(read?.3 == round && read?.4 == "seven")
        }
    }

    @Test("a single-value read refuses a query of more than one column")
    func scalarOfOneColumn() throws {
        let table = try Table()
        #expect(try table.database.scalarText("SELECT count(*) FROM t") == "1")
        let error = #expect(throws: SQLiteError.self) { try table.database.scalarText("SELECT id, word FROM t") }
        #expect(error?.message == "expected one column, the result has 2")
    }
}

/// Each record the store reads, with the columns it is read from.
enum RecordKind: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case account, instance, retiredToken, device, registration, status, lease, sameServer, unattendedRun, apiToken

    var testDescription: String { rawValue }

    var table: String {
        switch self {
        case .account: "accounts"
        case .instance: "instances"
        case .retiredToken: "device_token_history"
        case .device: "device"
        case .registration: "registrations"
        case .status: "account_status"
        case .lease: "account_leases"
        case .sameServer: "same_servers"
        case .unattendedRun: "unattended_runs"
        case .apiToken: "api_tokens"
        }
    }

    var columns: [String] {
        switch self {
        case .account: ["id", "instance", "username", "name", "state", "signed_in_at", "removal_started_at"]
        case .instance: ["instance", "preferred_account_id"]
        case .retiredToken: ["generation", "prefix", "retired_at", "fingerprint", "length", "shown"]
        case .device: ["token", "token_generation", "label", "install_marker", "token_set_at", "machine", "moved_at"]
        case .registration:
            ["account_id", "device_id", "added", "token_fingerprint", "token_length", "token_shown", "token_prefix", "token_generation", "made_at"]
        case .status:
            [
                "condition", "detail", "last_attempt_at", "last_success_at", "last_error", "next_retry_at", "failures", "list_etag", "etag_basis",
                "next_retry_reason",
            ]
        case .lease: ["account_id", "holder_pid", "holder_id", "taken_at", "expires_at"]
        case .sameServer: ["instance", "other", "device_id", "added", "proven_at"]
        case .unattendedRun: ["trigger", "started_at", "finished_at", "result", "accounts", "failed_accounts", "waiting", "period_seconds", "pid"]
        case .apiToken: ["name", "expires_at"]
        }
    }

    /// Reads the record from `row`, dropping it.
    func decode(_ row: Row) throws(SQLiteError) {
        switch self {
        case .account: _ = try AccountRecord(row: row)
        case .instance: _ = try InstanceRecord(row: row)
        case .retiredToken: _ = try RetiredToken(row: row)
        case .device: _ = try DeviceRecord(row: row, history: [])
        case .registration: _ = try RegistrationRecord(row: row)
        case .status: _ = try AccountStatusRecord(row: row)
        case .lease: _ = try LeaseRecord(row: row)
        case .sameServer: _ = try SameServerRecord(row: row)
        case .unattendedRun: _ = try UnattendedRunRecord(row: row)
        case .apiToken: _ = try APITokenDetails(row: row)
        }
    }
}
