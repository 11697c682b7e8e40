import GitbaySupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A doubt left about an account's row by what happened under another name that may be the
/// same server: another account recorded a row of the same id and `added` (`deviceID` and
/// `added` say which), or an add of the device token failed unanswered or unsettled there (no
/// row known). The doubted account's status is its own pass's to write; the doubt is a fact
/// that pass reads, and the proof of one server is made from it and that pass's own list.
package struct RowDoubt: Sendable, Equatable {
    package let since: Date
    /// Where it comes in the order doubts were raised (`doubtMark`).
    package var raised: Int64 = 0
    /// The instance URL of what raised it.
    package let instance: String
    package let deviceID: Int?
    package let added: String?

    package init(since: Date, instance: String, deviceID: Int? = nil, added: String? = nil) {
        self.since = since
        self.instance = instance
        self.deviceID = deviceID
        self.added = added
    }
}

extension StateStore {
    /// Leaves a doubt on the row of every account of another server (as far as is proven)
    /// holding a record of the token with `fingerprint`: an add of it under `instance` failed
    /// unanswered or was left unsettled, and may have moved that row.
    package func doubtRows(holdingFingerprint fingerprint: String, by instance: InstanceURL, at now: Date) throws {
        try write { database in
            let names = try Self.serverNames(database)
            let holders = try database.rows(
                "SELECT DISTINCT r.account_id, a.instance FROM registrations r JOIN accounts a ON a.id = r.account_id WHERE r.token_fingerprint = ?",
                .text(fingerprint)
            ) { row throws(SQLiteError) in (try row.int64("account_id"), try row.text("instance")) }
            for (id, text) in holders where !names.areSame(instance, text: text) {
                try Self.doubt(id, RowDoubt(since: now, instance: instance.description), database)
            }
        }
    }

    /// After `record` was written: a doubt on every other account holding a record of the same
    /// row (id and token, `added` the same where both know it), naming the recorder's instance:
    /// the row may have moved from that account to this one (it has, when both name one
    /// server). The doubt names the row, for the proof of one server (`AccountPass.proving`),
    /// only where both records know the same `added` and the other was made before the add that
    /// gave `record` was sent: two servers' rows of one id and millisecond, added at once, prove
    /// nothing.
    static func doubtSameRows(as record: RegistrationRecord, recordedBefore addSentAt: Date, _ database: Database) throws(SQLiteError) {
        guard let fingerprint = record.token.fingerprint,
            let text = try database.row(
                "SELECT instance FROM accounts WHERE id = ?", .integer(record.accountID), map: { row throws(SQLiteError) in try row.text("instance") }
            )
        else { return }
        let others = try database.rows(
            """
            SELECT account_id, added IS NOT NULL AND added IS ?1 AND made_at < ?2 AS before FROM registrations
            WHERE account_id != ?3 AND device_id = ?4 AND token_fingerprint = ?5 AND (?1 IS NULL OR added IS NULL OR added = ?1)
            """, .optionalText(record.added), .text(Timestamp.format(addSentAt)), .integer(record.accountID), .int(record.deviceID),
            .text(fingerprint)
        ) { row throws(SQLiteError) in (try row.int64("account_id"), try row.int("before") != 0) }
        for (id, before) in others {
            let row = before ? (record.deviceID, record.added) : nil
            try doubt(id, RowDoubt(since: record.madeAt, instance: text, deviceID: row?.0, added: row?.1), database)
        }
    }

    /// Writes `doubt` for the account, counted as the latest raised. One naming a row replaces
    /// an earlier doubt; one naming none keeps the earlier one's row and the instance it names.
    private static func doubt(_ id: Int64, _ doubt: RowDoubt, _ database: Database) throws(SQLiteError) {
        try database.run("UPDATE doubts_raised SET count = count + 1")
        let update =
            doubt.deviceID == nil
            ? "since = excluded.since, raised = excluded.raised, by_instance = iif(device_id IS NULL, excluded.by_instance, by_instance)"
            : "since = excluded.since, by_instance = excluded.by_instance, raised = excluded.raised, device_id = excluded.device_id, added = excluded.added"
        try database.run(
            """
            INSERT INTO row_doubts (account_id, since, by_instance, device_id, added, raised)
            VALUES (?, ?, ?, ?, ?, (SELECT count FROM doubts_raised))
            ON CONFLICT (account_id) DO UPDATE SET \(update)
            """, .integer(id), .text(Timestamp.format(doubt.since)), .text(doubt.instance), .optionalInt(doubt.deviceID),
            .optionalText(doubt.added))
    }

    /// How many doubts were ever raised: a doubt whose `raised` is above the mark read when a
    /// round began was raised during it.
    static func doubtMark(_ database: Database) throws(SQLiteError) -> Int64 {
        try database.row("SELECT count FROM doubts_raised", map: { row throws(SQLiteError) in try row.int64("count") }) ?? 0
    }

    /// The accounts whose doubt was raised after `mark` (`doubtMark`).
    package func accountsDoubted(after mark: Int64) throws -> Set<Int64> {
        try access { database in
            Set(
                try database.rows("SELECT account_id FROM row_doubts WHERE raised > ?", .integer(mark)) { row throws(SQLiteError) in
                    try row.int64("account_id")
                })
        }
    }

    /// The account's doubt, if it has one.
    package func rowDoubt(ofAccount id: Int64) throws -> RowDoubt? {
        try access { database in try Self.rowDoubts(database, account: id)[id] }
    }

    static func rowDoubts(_ database: Database, account: Int64? = nil) throws(SQLiteError) -> [Int64: RowDoubt] {
        let rows = try database.rows(
            "SELECT account_id, since, by_instance, device_id, added, raised FROM row_doubts WHERE ? IS NULL OR account_id = ?",
            .optionalInteger(account), .optionalInteger(account)
        ) { row throws(SQLiteError) in
            var doubt = RowDoubt(
                since: try row.date("since"), instance: try row.text("by_instance"), deviceID: try row.optionalInt("device_id"),
                added: try row.optionalText("added"))
            doubt.raised = try row.int64("raised")
            return (try row.int64("account_id"), doubt)
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

    /// Clears the account's doubt raised before its pass's round began (`mark`, read then):
    /// the pass's list, sent after, settles it. A doubt raised since stays for another pass.
    static func settleDoubt(ofAccount id: Int64, raisedThrough mark: Int64, _ database: Database) throws(SQLiteError) {
        try database.run("DELETE FROM row_doubts WHERE account_id = ? AND raised <= ?", .integer(id), .integer(mark))
    }
}

extension ServerNames {
    /// True when `url` and the URL written as `text` name one server; false when `text` is
    /// not a URL.
    func areSame(_ url: InstanceURL, text: String) -> Bool {
        (try? InstanceURL(parsing: text)).map { areSame(url, $0) } ?? false
    }
}
