import GitbaySupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A doubt one account's pass leaves about another account's row: an add of the same device
/// token under `instance`, a name not known to be another server, may have moved it. The
/// doubted account's status is its own pass's to write; the doubt is a fact that pass reads.
package struct RowDoubt: Sendable, Equatable {
    package let since: Date
    /// The instance URL the add went to.
    package let instance: String
}

extension StateStore {
    /// Leaves a doubt on each account's row, naming `instance` (the add's), as of `now`; an
    /// account already in doubt keeps its earlier one.
    package func doubtRows(ofAccounts ids: [Int64], by instance: InstanceURL, at now: Date) throws {
        guard !ids.isEmpty else { return }
        try write { database in
            for id in ids {
                try database.run(
                    "INSERT OR IGNORE INTO row_doubts (account_id, since, by_instance) VALUES (?, ?, ?)",
                    .integer(id), .text(Timestamp.format(now)), .text(instance.description))
            }
        }
    }

    /// Every doubt, by account id.
    package func rowDoubts() throws -> [Int64: RowDoubt] {
        try access { database in try Self.rowDoubts(database) }
    }

    static func rowDoubts(_ database: Database) throws(SQLiteError) -> [Int64: RowDoubt] {
        let rows = try database.rows("SELECT account_id, since, by_instance FROM row_doubts") { row throws(SQLiteError) in
            (try row.int64("account_id"), RowDoubt(since: try row.date("since"), instance: try row.text("by_instance")))
        }
        return Dictionary(rows, uniquingKeysWith: { first, _ in first })
    }

    /// `statuses` as they stand: a `registered` verdict whose row is in doubt is `pending`,
    /// saying why, until the account's own pass lists again.
    static func standing(_ statuses: [Int64: AccountStatusRecord], _ doubts: [Int64: RowDoubt]) -> [Int64: AccountStatusRecord] {
        guard !doubts.isEmpty else { return statuses }
        var standing = statuses
        for (id, doubt) in doubts where standing[id]?.condition == .registered {
            standing[id]?.condition = .pending
            standing[id]?.detail =
                "an add under \(doubt.instance), which may name the same server, may have moved its row; the next run checks"
        }
        return standing
    }

    /// Clears the account's doubt raised before its pass started at `listedSince`: the pass's
    /// list, sent after, settles it. A doubt raised during the pass stays for the next one.
    static func settleDoubt(ofAccount id: Int64, listedSince: Date?, _ database: Database) throws(SQLiteError) {
        guard let listedSince else { return }
        try database.run(
            "DELETE FROM row_doubts WHERE account_id = ? AND since <= ?", .integer(id), .text(Timestamp.format(listedSince)))
    }
}
