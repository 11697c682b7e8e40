import GitbaySupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension StateStore {
    /// In the order `AccountRecord(row:instances:)` reads them: each column is looked up by
    /// name, the next one first.
    static let accountColumns = "instance, id, username, name, state, signed_in_at, removal_started_at, ssh_destination, push_off"

    /// The accounts a query selects (`accountColumns`), each distinct instance URL parsed once:
    /// many accounts share a few instances.
    static func accounts(_ database: Database, _ sql: String, bound arguments: [SQLiteValue] = []) throws(SQLiteError) -> [AccountRecord] {
        var instances = InstanceTexts()
        return try database.rows(sql, bound: arguments) { row throws(SQLiteError) in try AccountRecord(row: row, instances: &instances) }
    }

    /// Every account, in sign-in order.
    package func accounts() throws -> [AccountRecord] {
        try access { database in try Self.allAccounts(database) }
    }

    /// Every account, in sign-in order, read on `database`.
    static func allAccounts(_ database: Database) throws(SQLiteError) -> [AccountRecord] {
        try accounts(database, "SELECT \(accountColumns) FROM accounts ORDER BY signed_in_at, id")
    }

    /// The accounts being removed, in sign-in order.
    package func removingAccounts() throws -> [AccountRecord] {
        try access { database in
            try Self.accounts(database, "SELECT \(Self.accountColumns) FROM accounts WHERE state = 'removing' ORDER BY signed_in_at, id")
        }
    }

    /// The account with this CLI name (`user@host[:port]`).
    package func account(named name: String) throws -> AccountRecord? {
        try access { database in
            try database.row("SELECT \(Self.accountColumns) FROM accounts WHERE name = ?", .text(name)) { row throws(SQLiteError) in
                try AccountRecord(row: row)
            }
        }
    }

    package func account(id: Int64) throws -> AccountRecord? {
        try access { database in
            try database.row("SELECT \(Self.accountColumns) FROM accounts WHERE id = ?", .integer(id)) { row throws(SQLiteError) in
                try AccountRecord(row: row)
            }
        }
    }

    /// Records a sign-in: a new account, or a new token for one already signed in (which
    /// makes it active again and clears an auth failure), with what is known of the token
    /// (`details` replaces what was known of the one before), kept in `place` (the keyring:
    /// only the reference, the keyring holds the token already, in `keyringItem` or, when nil,
    /// the item named after the account). Returns the account.
    @discardableResult
    package func signIn(
        instance: InstanceURL, username: String, apiToken: Secret, details: APITokenDetails = .unknown, place: TokenPlace = .database,
        keyringItem: String? = nil, now: Date = Date()
    ) throws -> AccountRecord {
        let name = AccountRecord.name(username: username, instance: instance)
        return try write { database in
            let existing = try database.row("SELECT id FROM accounts WHERE name = ?", .text(name)) { row throws(SQLiteError) in try row.int64("id") }
            let id: Int64
            if let existing {
                id = existing
                // A sign-in ends a removal in progress: its deletion no longer matches.
                try database.run("UPDATE accounts SET state = 'active', removal_started_at = NULL WHERE id = ?", .integer(id))
            } else {
                try database.run(
                    "INSERT INTO accounts (instance, username, name, state, signed_in_at) VALUES (?, ?, ?, 'active', ?)",
                    .text(instance.description), .text(username), .text(name), .text(Timestamp.format(now))
                )
                id = database.lastInsertRowID
            }
            try Self.upsertAPIToken(
                database, accountID: id, token: apiToken, place: place, keyringItem: keyringItem, details: details, now: now)
            try database.run("INSERT OR IGNORE INTO instances (instance) VALUES (?)", .text(instance.description))
            // A new token starts afresh: forget an auth failure and the remembered list tag.
            try database.run(
                """
                INSERT INTO account_status (account_id, condition) VALUES (?, 'pending')
                ON CONFLICT (account_id) DO UPDATE SET condition = 'pending', detail = NULL, next_retry_at = NULL,
                    next_retry_reason = NULL,
                    failures = 0, list_etag = NULL, etag_basis = NULL
                """,
                .integer(id)
            )
            return try database.row("SELECT \(Self.accountColumns) FROM accounts WHERE id = ?", .integer(id)) { row throws(SQLiteError) in
                try AccountRecord(row: row)
            }!
        }
    }

    /// Records where the account's server serves SSH (`AccountRecord.sshDestination`).
    package func setSSHDestination(_ destination: String, ofAccount id: Int64) throws {
        try write { database in try database.run("UPDATE accounts SET ssh_destination = ? WHERE id = ?", .text(destination), .integer(id)) }
    }

    /// Records the push switch as `push on|off` last set it from here (`AccountRecord.pushOff`).
    package func setPushOff(_ off: Bool, ofAccount id: Int64) throws {
        try write { database in try database.run("UPDATE accounts SET push_off = ? WHERE id = ?", .integer(off ? 1 : 0), .integer(id)) }
    }

    package func setState(_ state: AccountState, ofAccount id: Int64, now: Date = Date()) throws {
        try write { database in
            // The detail spoke of the account's former role (who holds the token, a removal's
            // hook): it goes when the state changes, and stays when asked again for the same.
            try database.run(
                """
                UPDATE account_status SET detail = NULL
                WHERE account_id = ? AND (SELECT state FROM accounts WHERE id = ?) IS NOT ?
                """,
                .integer(id), .integer(id), .text(state.rawValue)
            )
            // A removal asked for again is the same removal; any other state ends it.
            try database.run(
                "UPDATE accounts SET state = ?1, removal_started_at = CASE WHEN ?1 = 'removing' THEN coalesce(removal_started_at, ?2) END "
                    + "WHERE id = ?3",
                .text(state.rawValue), .text(Timestamp.format(now)), .integer(id))
            try Self.forgetVerdicts(database, "account_id = ?", .integer(id))
        }
    }

    /// The account's API token, if the database holds it (nil too when the keyring does).
    package func apiToken(ofAccount id: Int64) throws -> Secret? {
        try access { database in
            try database.row("SELECT token FROM api_tokens WHERE account_id = ?", .integer(id)) { row throws(SQLiteError) in
                try row.optionalText("token").map(Secret.init)
            }
        } ?? nil
    }

    /// What is known of the account's API token besides the token; nil when it has none.
    package func apiTokenDetails(ofAccount id: Int64) throws -> APITokenDetails? {
        try access { database in
            try database.row(
                "SELECT name, expires_at, lifetime_seconds FROM api_tokens WHERE account_id = ?", .integer(id), map: APITokenDetails.init(row:))
        }
    }

    /// How a deletion ended.
    package enum Deletion: Sendable, Equatable {
        /// The account, its API token and its records are deleted. `wiped`: the token's bytes
        /// are gone from the files too; false while another connection's read kept the WAL
        /// from being checkpointed, so they leave at the next checkpoint.
        case deleted(wiped: Bool)
        /// Nothing was deleted: the account is no longer in the removal it was asked for (a
        /// sign-in, or another state, came meanwhile), or it is gone already.
        case notRemoving
    }

    /// Deletes the account's API token, then the account with its records, in one transaction
    /// that first checks the account is still in the removal that began at `removalStartedAt`
    /// (a sign-in made meanwhile wins: nothing is deleted). Then checkpoints the WAL so the
    /// token's bytes are gone from the files (`secure_delete` zeroes freed pages).
    package func deleteAccount(id: Int64, removalStartedAt: Date?) throws -> Deletion {
        let deleted = try write { database in
            let current = try database.row("SELECT state, removal_started_at FROM accounts WHERE id = ?", .integer(id)) { row throws(SQLiteError) in
                (state: try row.text("state"), startedAt: try row.optionalText("removal_started_at"))
            }
            // Compared as read, not as formatted again: a parsed time need not format back to
            // its text to the millisecond.
            guard let current, current.state == AccountState.removing.rawValue, Timestamp.parse(current.startedAt) == removalStartedAt
            else { return false }
            try database.run("DELETE FROM api_tokens WHERE account_id = ?", .integer(id))
            try database.run("UPDATE instances SET preferred_account_id = NULL WHERE preferred_account_id = ?", .integer(id))
            try database.run("DELETE FROM accounts WHERE id = ?", .integer(id))
            return true
        }
        guard deleted else { return .notRemoving }
        return .deleted(wiped: try checkpoint())
    }

    /// What is known of each instance that has accounts.
    package func instances() throws -> [InstanceURL: InstanceRecord] {
        let records = try access { database in
            try database.rows("SELECT instance, preferred_account_id FROM instances") { row throws(SQLiteError) in try InstanceRecord(row: row) }
        }
        return Dictionary(records.compactMap { $0 }.map { ($0.instance, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// Makes `accountID` the account that holds this device's token on its instance (and on
    /// every other URL of its server: the latest choice holds).
    package func prefer(accountID: Int64, on instance: InstanceURL, now: Date = Date()) throws {
        try write { database in
            try database.run(
                """
                INSERT INTO instances (instance, preferred_account_id, preferred_at) VALUES (?, ?, ?)
                ON CONFLICT (instance) DO UPDATE SET preferred_account_id = excluded.preferred_account_id,
                    preferred_at = excluded.preferred_at
                """,
                .text(instance.description), .integer(accountID), .text(Timestamp.format(now))
            )
            let urls = try Self.serverNames(database).names(of: instance)
            for url in urls { try Self.forgetListTags(database, instance: url) }
            // The new choice replaces one made under another name of the server.
            try Self.keepOnlyPreference(of: instance.description, among: urls, database)
        }
    }

    static func forgetListTags(_ database: Database, instance: InstanceURL) throws(SQLiteError) {
        try forgetVerdicts(database, "account_id IN (SELECT id FROM accounts WHERE instance = ?)", .text(instance.description))
    }

    /// After a change to what is wanted (the device token, an account's state, the holder of
    /// an instance): a remembered list tag no longer vouches for anything, and `registered`
    /// from an earlier run is no longer known to be true. A run that stopped half way (a
    /// removal sent, its answer lost) must not leave an account reported registered.
    static func forgetVerdicts(_ database: Database, _ condition: String = "1", _ arguments: SQLiteValue...) throws(SQLiteError) {
        let statement = try database.prepare(
            """
            UPDATE account_status SET list_etag = NULL, etag_basis = NULL,
                condition = CASE condition WHEN 'registered' THEN 'pending' ELSE condition END
            WHERE \(condition)
            """)
        try statement.bind(arguments)
        while try statement.step() {}
    }
}
