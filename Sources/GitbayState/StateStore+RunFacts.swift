import GitbaySupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Everything a run plans from, read before its first request in one read transaction with
/// one query a table: not one read per account.
package struct RunFacts: Sendable {
    package let device: DeviceRecord
    /// Every account, in sign-in order.
    package let accounts: [AccountRecord]
    /// Each account's last verdict, by account id; an account without one is missing.
    package let statuses: [Int64: AccountStatusRecord]
    /// The times steady runs keep for the accounts whose rows take them from there.
    package var steadyTimes: SteadyTimes = .empty
    /// Each account's records, by account id.
    package let registrations: [Int64: [RegistrationRecord]]
    /// The account preferred on each server, by the server's first URL (`ServerNames.server`).
    package let preferred: [InstanceURL: Int64]
    /// Which instance URLs name one server.
    package let names: ServerNames
    /// Each account's API token the database holds, by account id.
    package let apiTokens: [Int64: Secret]
    /// The accounts whose API token the OS keyring holds.
    package let keyringTokens: Set<Int64>
    /// The keyring item (its `account` attribute) holding each of those accounts' token, by
    /// account id: the one the database names, else the item named after the account.
    package let keyringItems: [Int64: String]
    /// The accounts whose token an earlier version kept in the database, for the keyring.
    package let awaitingKeyring: Set<Int64>
    /// Every lease on record, live or not, by account id.
    package let leases: [Int64: LeaseRecord]
    /// The database as these facts were read.
    package let version: DatabaseVersion
    /// How many doubts had been raised (`RowDoubt.raised`) as these facts were read.
    package var doubtMark: Int64 = 0
}

/// What `status` and `accounts` show, read as of one moment: the device, every account in
/// sign-in order, their verdicts and their records. No API token is read.
package struct AccountFacts: Sendable {
    package let device: DeviceRecord
    package let accounts: [AccountRecord]
    /// Each account's last verdict as it stands, by account id; an account without one is
    /// missing. A `registered` verdict in doubt (`RowDoubt`) stands as `pending` until the
    /// account's own pass lists again.
    package let statuses: [Int64: AccountStatusRecord]
    /// Each account's records, by account id.
    package let registrations: [Int64: [RegistrationRecord]]
    /// Which instance URLs name one server.
    package var names: ServerNames = .none
    /// What is known of each account's API token, by account id (never the token).
    package var tokenDetails: [Int64: APITokenDetails] = [:]
}

/// What a pass that made no change on the server records for an account, saved with the
/// run's others in one transaction at its end: the verdict it read first (`read`) and the one
/// it reached (`status`). It is written only while the stored verdict is still `read`.
package struct SteadyVerdict: Sendable, Equatable {
    package let accountID: Int64
    package let read: AccountStatusRecord
    package let status: AccountStatusRecord

    package init(accountID: Int64, read: AccountStatusRecord, status: AccountStatusRecord) {
        self.accountID = accountID
        self.read = read
        self.status = status
    }

    /// True when only the times of the attempt and the success moved, and it is a success:
    /// the common steady run.
    package var onlyTimesDiffer: Bool {
        read.differsOnlyInTimes(from: status) && status.nextRetryAt == nil && status.failures == 0
    }
}

extension StateStore {
    /// What `status` and `accounts` show, in one read: a query per table, whatever the
    /// number of accounts.
    package func accountFacts() throws -> AccountFacts {
        let read = try access { database in
            try database.reading {
                (
                    device: try Self.readDevice(database),
                    accounts: try Self.allAccounts(database),
                    statuses: try Self.allStatuses(database).statuses, doubts: try Self.rowDoubts(database),
                    registrations: try Self.allRegistrations(database), names: try Self.serverNames(database),
                    tokenDetails: try database.rows("SELECT account_id, name, expires_at, lifetime_seconds FROM api_tokens") {
                        row throws(SQLiteError) in
                        (try row.int64("account_id"), try APITokenDetails(row: row))
                    }
                )
            }
        }
        return AccountFacts(
            device: try read.device ?? device(), accounts: read.accounts, statuses: Self.standing(read.statuses, read.doubts),
            registrations: read.registrations, names: read.names, tokenDetails: Dictionary(read.tokenDetails, uniquingKeysWith: { first, _ in first })
        )
    }

    /// Everything a run plans from, consistent as of one moment.
    package func runFacts() throws -> RunFacts {
        let read = try access { database in
            try database.reading {
                let names = try Self.serverNames(database)
                return (
                    device: try Self.readDevice(database),
                    accounts: try Self.allAccounts(database),
                    statuses: try Self.allStatuses(database), registrations: try Self.allRegistrations(database),
                    names: names, preferred: try Self.preferredAccounts(database, names: names),
                    apiTokens: try database.rows("SELECT account_id, token, store, keyring_item FROM api_tokens") { row throws(SQLiteError) in
                        (
                            id: try row.int64("account_id"), token: try row.optionalText("token").map(Secret.init),
                            place: TokenPlace(column: try row.optionalText("store")), item: try row.optionalText("keyring_item")
                        )
                    },
                    leases: try Self.allLeases(database), version: try database.version(), doubtMark: try Self.doubtMark(database)
                )
            }
        }
        var facts = RunFacts(
            device: try read.device ?? device(), accounts: read.accounts, statuses: read.statuses.statuses, registrations: read.registrations,
            preferred: read.preferred, names: read.names,
            apiTokens: Dictionary(read.apiTokens.compactMap { row in row.token.map { (row.id, $0) } }, uniquingKeysWith: { first, _ in first }),
            keyringTokens: Set(read.apiTokens.filter { $0.place == .keyring }.map(\.id)),
            keyringItems: Self.keyringItems(read.apiTokens.filter { $0.place == .keyring }, accounts: read.accounts),
            awaitingKeyring: Set(read.apiTokens.filter { $0.place == .awaitingKeyring }.map(\.id)),
            leases: Dictionary(read.leases.map { ($0.accountID, $0) }, uniquingKeysWith: { first, _ in first }),
            version: read.version
        )
        facts.doubtMark = read.doubtMark
        facts.steadyTimes = read.statuses.steady
        return facts
    }

    /// The keyring item of each row: the one it names, else the item named after its account.
    private static func keyringItems(_ rows: [(id: Int64, token: Secret?, place: TokenPlace, item: String?)], accounts: [AccountRecord])
        -> [Int64: String]
    {
        let names = Dictionary(accounts.map { ($0.id, $0.name) }, uniquingKeysWith: { first, _ in first })
        return Dictionary(rows.compactMap { row in (row.item ?? names[row.id]).map { (row.id, $0) } }, uniquingKeysWith: { first, _ in first })
    }

    /// Records the times of the verdicts that changed nothing, in one transaction, each only
    /// while the account's stored verdict is still the one the run read and `stillWanted`
    /// (given what every account wants now) names the account. `read` are the facts the run
    /// planned every verdict from: when the database has not changed since they were read,
    /// what each account should have is what its pass planned for, and `stillWanted` is not
    /// asked (working out every account's desire again cost a steady run some 5 K instructions
    /// per account).
    /// When only the times moved, they go into the steady runs' row (`SteadyTimes`): one row
    /// written for the run, not one for each account.
    /// `run`, when given, goes into the run history in the same transaction (`insertRun`), so
    /// that recording a steady run costs no transaction of its own. Returns the accounts written.
    @discardableResult
    package func saveSteadyVerdicts(
        _ verdicts: [SteadyVerdict], read: RunFacts? = nil, run: RunHistoryRecord? = nil, stillWanted: @Sendable (InstanceFacts) -> Set<Int64>
    ) throws -> Set<Int64> {
        guard !verdicts.isEmpty else { return [] }
        return try write { database in
            if let run { try Self.insertRun(run, database) }
            // Facts the run read are still the facts when nothing was written since: every plan made from them stands.
            let unchanged = try read.map { try database.version(insideWrite: true) == $0.version } ?? false
            var wanted: Set<Int64>?
            if !unchanged {
                guard let facts = try Self.allFacts(database) else { return [] }
                wanted = stillWanted(facts)
            }
            let doubted = try Self.rowDoubts(database)
            var written: Set<Int64> = []
            var steady: [SteadyTimes.Entry] = []
            // The steady runs' times as read; nil when they may have changed since.
            let apart = unchanged ? read?.steadyTimes : nil
            for verdict in verdicts where wanted?.contains(verdict.accountID) ?? true {
                if let apart, let entry = Self.steadyEntry(verdict) {
                    guard try Self.keepTimes(ofAccount: verdict.accountID, apart: apart, database) else { continue }
                    steady.append(entry)
                } else {
                    guard try Self.save(verdict, unchanged: unchanged, database) else { continue }
                }
                written.insert(verdict.accountID)
                if doubted[verdict.accountID] != nil {
                    try Self.settleDoubt(ofAccount: verdict.accountID, raisedThrough: read?.doubtMark ?? 0, database)
                }
            }
            if let apart, !steady.isEmpty { try Self.saveSteadyTimes(apart.merging(steady), database) }
            return written
        }
    }

    /// The times of a verdict where only they moved, for the steady runs' row; nil for any
    /// other verdict, or times the row form cannot hold.
    private static func steadyEntry(_ verdict: SteadyVerdict) -> SteadyTimes.Entry? {
        guard verdict.onlyTimesDiffer else { return nil }
        return SteadyTimes.Entry(accountID: verdict.accountID, attempt: verdict.status.lastAttemptAt, success: verdict.status.lastSuccessAt)
    }

    /// Makes the account's status row take its times from the steady runs' row, unless it
    /// already does (`apart`, as read: the database has not changed since); false when the
    /// account has no status row.
    private static func keepTimes(ofAccount id: Int64, apart: SteadyTimes, _ database: Database) throws(SQLiteError) -> Bool {
        guard apart.entry(of: id) == nil else { return true }
        try database.run("UPDATE account_status SET steady_times = 1 WHERE account_id = ?", .integer(id))
        return database.changes > 0
    }

    /// Writes one verdict while the stored one is still the verdict it read; true if written.
    /// `unchanged`: nothing was written since the run read it, so the stored verdict is that one.
    private static func save(_ verdict: SteadyVerdict, unchanged: Bool, _ database: Database) throws(SQLiteError) -> Bool {
        let (read, status) = (verdict.read, verdict.status)
        guard verdict.onlyTimesDiffer else {
            guard try storedStatus(ofAccount: verdict.accountID, database) == read else { return false }
            try insertStatus(status, ofAccount: verdict.accountID, database)
            return true
        }
        let attempt = status.lastAttemptAt.map(Timestamp.format)
        let success = status.lastSuccessAt == status.lastAttemptAt ? attempt : status.lastSuccessAt.map(Timestamp.format)
        if unchanged {
            try database.run(
                "UPDATE account_status SET last_attempt_at = ?, last_success_at = ?, steady_times = 0 WHERE account_id = ?",
                .optionalText(attempt), .optionalText(success), .integer(verdict.accountID))
            return database.changes > 0
        }
        try database.run(
            """
            UPDATE account_status SET last_attempt_at = ?, last_success_at = ?, steady_times = 0
            WHERE account_id = ? AND condition = ? AND detail IS ? AND last_error IS ? AND next_retry_at IS NULL
                AND failures = 0 AND list_etag IS ? AND etag_basis IS ?
            """,
            .optionalText(attempt), .optionalText(success),
            .integer(verdict.accountID), .text(read.condition.rawValue), .optionalText(read.detail), .optionalText(read.lastError),
            .optionalText(read.listETag), .optionalText(read.etagBasis)
        )
        return database.changes > 0
    }
}
