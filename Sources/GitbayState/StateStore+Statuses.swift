import GitbaySupport

extension StateStore {
    /// The account's stored verdict, or the empty one when it has none. Inside a transaction:
    /// its times may be in the steady runs' row (`SteadyTimes`).
    static func storedStatus(ofAccount id: Int64, _ database: Database) throws(SQLiteError) -> AccountStatusRecord {
        try database.row("SELECT \(statusColumns) FROM account_status WHERE account_id = ?", .integer(id)) {
            row throws(SQLiteError) in
            // The steady runs' row is read only for a status that takes its times from it.
            let steady = try row.bool("steady_times") ? try steadyTimes(database).entry(of: id) : nil
            return try AccountStatusRecord(row: row, steady: steady)
        } ?? AccountStatusRecord()
    }

    /// Every account's latest outcome, by account id, and the steady runs' times that some
    /// account's row still takes its times from (the others are left out). Inside a transaction.
    static func allStatuses(_ database: Database) throws(SQLiteError) -> (statuses: [Int64: AccountStatusRecord], steady: SteadyTimes) {
        let stored = try steadyTimes(database)
        var pending = stored.entries[...]
        var kept: [SteadyTimes.Entry] = []
        let rows = try database.rows("SELECT account_id, \(Self.statusColumns) FROM account_status ORDER BY account_id") {
            row throws(SQLiteError) in
            let id = try row.int64("account_id")
            var entry: SteadyTimes.Entry?
            if try row.bool("steady_times") {
                // Rows and entries both in increasing id: each entry is met once.
                while let first = pending.first, first.accountID < id { pending = pending.dropFirst() }
                if let first = pending.first, first.accountID == id {
                    entry = first
                    kept.append(first)
                }
            }
            return (id, try AccountStatusRecord(row: row, steady: entry))
        }
        return (Dictionary(rows, uniquingKeysWith: { first, _ in first }), SteadyTimes(ordered: kept))
    }

    /// The steady runs' row; none when there is none yet.
    static func steadyTimes(_ database: Database) throws(SQLiteError) -> SteadyTimes {
        let stored = try database.row("SELECT entries FROM steady_checks WHERE id = 1") { row throws(SQLiteError) in
            try row.optionalBlob("entries", SteadyTimes.init(bytes:))
        }
        return (stored ?? nil) ?? .empty
    }

    /// Replaces the steady runs' row.
    static func saveSteadyTimes(_ times: SteadyTimes, _ database: Database) throws(SQLiteError) {
        try database.run("INSERT OR REPLACE INTO steady_checks (id, entries) VALUES (1, ?)", .blob(times.bytes))
    }
}
