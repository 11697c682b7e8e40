import GitbaySupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension StateStore {
    /// In the order `AccountStatusRecord(row:)` reads them: each column is looked up by name,
    /// the next one first. `steady_times` first: it says whether the row's times are read.
    static let statusColumns =
        "steady_times, condition, detail, last_attempt_at, last_success_at, last_error, next_retry_at, next_retry_reason, failures, "
        + "list_etag, etag_basis, unchecked_reason, unchecked_since, unchecked_runs"

    /// In the order `RegistrationRecord(row:)` reads them.
    private static let registrationColumns = """
        token_prefix, token_fingerprint, token_length, token_shown, account_id, device_id, added, token_generation, made_at
        """

    /// The rows this device holds for an account.
    package func registrations(ofAccount id: Int64) throws -> [RegistrationRecord] {
        try access { database in try Self.registrations(ofAccount: id, database) }
    }

    static func registrations(ofAccount id: Int64, _ database: Database) throws(SQLiteError) -> [RegistrationRecord] {
        try database.rows(
            "SELECT \(Self.registrationColumns) FROM registrations WHERE account_id = ? ORDER BY device_id", .integer(id),
            map: RegistrationRecord.init(row:)
        )
    }

    /// Every account's records, by account id.
    package func allRegistrations() throws -> [Int64: [RegistrationRecord]] {
        try access { database in try Self.allRegistrations(database) }
    }

    static func allRegistrations(_ database: Database) throws(SQLiteError) -> [Int64: [RegistrationRecord]] {
        let records = try database.rows(
            "SELECT \(Self.registrationColumns) FROM registrations ORDER BY account_id, device_id", map: RegistrationRecord.init(row:)
        )
        return Dictionary(grouping: records, by: \.accountID)
    }

    /// Records a row made or adopted for an account (replacing the record of the same id). When
    /// the account's add sent at `addSentAt` made or moved it, the same transaction doubts the
    /// rows other accounts recorded before then with the same id, `added` and token
    /// (`doubtSameRows`): the add may have moved the row here from them. So with `undecided`
    /// (id and `added`): rows the account listed after an add answered without its id, could not
    /// tell apart and removed before adding afresh; each may have been another name's row.
    package func recordRegistration(
        _ registration: RegistrationRecord, afterAddSentAt addSentAt: Date? = nil, undecided: [(id: Int, added: String?)] = []
    ) throws {
        try write { database in
            try database.run(
                """
                INSERT OR REPLACE INTO registrations (account_id, device_id, added, token_fingerprint, token_length, token_shown,
                    token_prefix, token_generation, made_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
                .integer(registration.accountID), .int(registration.deviceID), .optionalText(registration.added),
                .optionalText(registration.token.fingerprint), .optionalInt(registration.token.length),
                .text(registration.token.shown), .text(Self.prefixColumn(registration.token)),
                .int(registration.generation), .text(Timestamp.format(registration.madeAt))
            )
            guard let addSentAt else { return }
            try Self.doubtSameRows(as: registration, recordedBefore: addSentAt, database)
            // A removed row of the new row's id is another row unless its `added` is the same too (ids are reused).
            for row in undecided where row.id != registration.deviceID || row.added != registration.added {
                let removed = RegistrationRecord(
                    accountID: registration.accountID, deviceID: row.id, added: row.added, token: registration.token,
                    generation: registration.generation, madeAt: registration.madeAt)
                try Self.doubtSameRows(as: removed, recordedBefore: addSentAt, database)
            }
        }
    }

    /// The `token_prefix` column kept from the first schema: the display without its `…`.
    private static func prefixColumn(_ token: TokenIdentity) -> String {
        token.shown.hasSuffix("\u{2026}") ? String(token.shown.dropLast()) : token.shown
    }

    /// Forgets a row (removed, or found gone or not ours).
    package func forgetRegistration(accountID: Int64, deviceID: Int) throws {
        try write { database in
            try database.run(
                "DELETE FROM registrations WHERE account_id = ? AND device_id = ?", .integer(accountID), .int(deviceID)
            )
        }
    }

    /// The outcome of the account's latest reconcile.
    package func status(ofAccount id: Int64) throws -> AccountStatusRecord {
        try access { database in try database.reading { try Self.storedStatus(ofAccount: id, database) } }
    }

    package func saveStatus(_ status: AccountStatusRecord, ofAccount id: Int64) throws {
        try write { database in try Self.insertStatus(status, ofAccount: id, database) }
    }

    /// Notes, for each account, that a run could not check it and why: since when, and in
    /// how many runs in a row for that reason. Written on each account's own behalf; a verdict
    /// a pass saves clears it. An account signed out meanwhile (its removal finished while the
    /// run went on) is left out.
    package func noteUnchecked(_ accounts: [(id: Int64, reason: UncheckedReason)], at now: Date) throws {
        guard !accounts.isEmpty else { return }
        try write { database in
            for (id, reason) in accounts {
                try database.run(
                    """
                    INSERT INTO account_status (account_id, condition, unchecked_reason, unchecked_since, unchecked_runs)
                    SELECT id, 'pending', ?, ?, 1 FROM accounts WHERE id = ?
                    ON CONFLICT (account_id) DO UPDATE SET
                        unchecked_since = CASE WHEN unchecked_reason IS excluded.unchecked_reason
                            THEN unchecked_since ELSE excluded.unchecked_since END,
                        unchecked_runs = CASE WHEN unchecked_reason IS excluded.unchecked_reason THEN unchecked_runs + 1 ELSE 1 END,
                        unchecked_reason = excluded.unchecked_reason
                    """, .text(reason.rawValue), .text(Timestamp.format(now)), .integer(id))
            }
        }
    }

    static func insertStatus(_ status: AccountStatusRecord, ofAccount id: Int64, _ database: Database) throws(SQLiteError) {
        try database.run(
            """
            INSERT OR REPLACE INTO account_status
                (account_id, condition, detail, last_attempt_at, last_success_at, last_error, next_retry_at,
                 failures, list_etag, etag_basis, next_retry_reason)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """,
            .integer(id), .text(status.condition.rawValue), .optionalText(status.detail),
            .optionalText(status.lastAttemptAt.map(Timestamp.format)),
            .optionalText(status.lastSuccessAt.map(Timestamp.format)), .optionalText(status.lastError),
            .optionalText(status.nextRetryAt.map(Timestamp.format)), .int(status.failures),
            .optionalText(status.listETag), .optionalText(status.etagBasis),
            .optionalText(status.nextRetryAt == nil ? nil : status.nextRetryReason?.rawValue)
        )
    }
}
