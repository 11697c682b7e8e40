import FoundationEssentials

extension StateStore {
    /// The rows this device holds for an account.
    public func registrations(ofAccount id: Int64) throws -> [RegistrationRecord] {
        try access { database in
            try database.rows(
                """
                SELECT account_id, device_id, token_generation, token_prefix, made_at, verified_at
                FROM registrations WHERE account_id = ? ORDER BY device_id
                """,
                .integer(id)
            ) { row in
                RegistrationRecord(
                    accountID: row.integer(0), deviceID: Int(row.integer(1)), generation: Int(row.integer(2)),
                    tokenPrefix: row.requiredText(3), madeAt: Timestamp.parse(row.text(4)) ?? Date(timeIntervalSince1970: 0),
                    verifiedAt: Timestamp.parse(row.text(5))
                )
            }
        }
    }

    /// Records a row made or adopted for an account (replacing the record of the same id).
    public func recordRegistration(_ registration: RegistrationRecord) throws {
        try write { database in
            try database.run(
                """
                INSERT OR REPLACE INTO registrations
                    (account_id, device_id, token_generation, token_prefix, made_at, verified_at)
                VALUES (?, ?, ?, ?, ?, ?)
                """,
                .integer(registration.accountID), .int(registration.deviceID), .int(registration.generation),
                .text(registration.tokenPrefix), .text(Timestamp.format(registration.madeAt)),
                .optionalText(registration.verifiedAt.map(Timestamp.format))
            )
        }
    }

    /// Forgets a row (removed, or found gone or not ours).
    public func forgetRegistration(accountID: Int64, deviceID: Int) throws {
        try write { database in
            try database.run(
                "DELETE FROM registrations WHERE account_id = ? AND device_id = ?", .integer(accountID), .int(deviceID)
            )
        }
    }

    /// Marks the account's records as seen on the server now.
    public func markVerified(accountID: Int64, deviceIDs: [Int], at now: Date = Date()) throws {
        guard !deviceIDs.isEmpty else { return }
        try write { database in
            for id in deviceIDs {
                try database.run(
                    "UPDATE registrations SET verified_at = ? WHERE account_id = ? AND device_id = ?",
                    .text(Timestamp.format(now)), .integer(accountID), .int(id)
                )
            }
        }
    }

    /// The outcome of the account's latest reconcile.
    public func status(ofAccount id: Int64) throws -> AccountStatusRecord {
        try access { database in
            try database.row(
                """
                SELECT condition, detail, last_attempt_at, last_success_at, last_error, next_retry_at, failures,
                       list_etag, etag_basis
                FROM account_status WHERE account_id = ?
                """,
                .integer(id)
            ) { row in
                AccountStatusRecord(
                    condition: AccountCondition(rawValue: row.requiredText(0)) ?? .pending, detail: row.text(1),
                    lastAttemptAt: Timestamp.parse(row.text(2)), lastSuccessAt: Timestamp.parse(row.text(3)),
                    lastError: row.text(4), nextRetryAt: Timestamp.parse(row.text(5)), failures: Int(row.integer(6)),
                    listETag: row.text(7), etagBasis: row.text(8)
                )
            } ?? AccountStatusRecord()
        }
    }

    public func saveStatus(_ status: AccountStatusRecord, ofAccount id: Int64) throws {
        try write { database in
            try database.run(
                """
                INSERT OR REPLACE INTO account_status
                    (account_id, condition, detail, last_attempt_at, last_success_at, last_error, next_retry_at,
                     failures, list_etag, etag_basis)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
                .integer(id), .text(status.condition.rawValue), .optionalText(status.detail),
                .optionalText(status.lastAttemptAt.map(Timestamp.format)),
                .optionalText(status.lastSuccessAt.map(Timestamp.format)), .optionalText(status.lastError),
                .optionalText(status.nextRetryAt.map(Timestamp.format)), .int(status.failures),
                .optionalText(status.listETag), .optionalText(status.etagBasis)
            )
        }
    }
}
