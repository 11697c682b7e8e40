import FoundationEssentials
import GitbaySupport

/// Everything a run plans from, read before its first request in one read transaction with
/// one query a table: not one read per account.
package struct RunFacts: Sendable {
    package let device: DeviceRecord
    /// Every account, in sign-in order.
    package let accounts: [AccountRecord]
    /// Each account's last verdict, by account id; an account without one is missing.
    package let statuses: [Int64: AccountStatusRecord]
    /// Each account's records, by account id.
    package let registrations: [Int64: [RegistrationRecord]]
    package let preferred: [InstanceURL: Int64]
    /// Each account's API token, by account id.
    package let apiTokens: [Int64: Secret]
    /// Every lease on record, live or not, by account id.
    package let leases: [Int64: LeaseRecord]
}

/// The times a run that found nothing to change records for an account, and the verdict it
/// read first: they are written only while the stored verdict is still that one.
package struct SteadyVerdict: Sendable, Equatable {
    package let accountID: Int64
    package let read: AccountStatusRecord
    package let attemptAt: Date
    package let successAt: Date

    package init(accountID: Int64, read: AccountStatusRecord, attemptAt: Date, successAt: Date) {
        self.accountID = accountID
        self.read = read
        self.attemptAt = attemptAt
        self.successAt = successAt
    }
}

extension StateStore {
    /// Everything a run plans from, consistent as of one moment.
    package func runFacts() throws -> RunFacts {
        let read = try access { database in
            try database.reading {
                (
                    device: try Self.readDevice(database),
                    accounts: try database.rows("SELECT \(Self.accountColumns) FROM accounts ORDER BY signed_in_at, id", map: Self.account),
                    statuses: try Self.allStatuses(database), registrations: try Self.allRegistrations(database),
                    preferred: try database.rows("SELECT instance, preferred_account_id FROM instances WHERE preferred_account_id IS NOT NULL") {
                        row in (try? InstanceURL(parsing: row.requiredText(0))).map { ($0, row.integer(1)) }
                    },
                    apiTokens: try database.rows("SELECT account_id, token FROM api_tokens") { ($0.integer(0), Secret($0.requiredText(1))) },
                    leases: try Self.allLeases(database)
                )
            }
        }
        return RunFacts(
            device: try read.device ?? device(), accounts: read.accounts, statuses: read.statuses, registrations: read.registrations,
            preferred: Dictionary(read.preferred.compactMap { $0 }, uniquingKeysWith: { first, _ in first }),
            apiTokens: Dictionary(read.apiTokens, uniquingKeysWith: { first, _ in first }),
            leases: Dictionary(read.leases.map { ($0.accountID, $0) }, uniquingKeysWith: { first, _ in first })
        )
    }

    /// Records the times of the verdicts that changed nothing, in one transaction, each only
    /// while the account's stored verdict is still the one the run read and `stillWanted`
    /// (given what every account wants now) names the account. Returns the accounts written.
    @discardableResult
    package func saveSteadyVerdicts(
        _ verdicts: [SteadyVerdict], stillWanted: @Sendable (InstanceFacts) -> Set<Int64>
    ) throws -> Set<Int64> {
        guard !verdicts.isEmpty else { return [] }
        return try write { database in
            guard let facts = try Self.allFacts(database) else { return [] }
            let wanted = stillWanted(facts)
            var written: Set<Int64> = []
            for verdict in verdicts where wanted.contains(verdict.accountID) {
                let status = verdict.read
                try database.run(
                    """
                    UPDATE account_status SET last_attempt_at = ?, last_success_at = ?
                    WHERE account_id = ? AND condition = ? AND detail IS ? AND last_error IS ? AND next_retry_at IS NULL
                        AND failures = 0 AND list_etag IS ? AND etag_basis IS ?
                    """,
                    .text(Timestamp.format(verdict.attemptAt)), .text(Timestamp.format(verdict.successAt)), .integer(verdict.accountID),
                    .text(status.condition.rawValue), .optionalText(status.detail), .optionalText(status.lastError),
                    .optionalText(status.listETag), .optionalText(status.etagBasis)
                )
                if database.changes > 0 { written.insert(verdict.accountID) }
            }
            return written
        }
    }
}
