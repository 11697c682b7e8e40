import GitbaySupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// An account's API token as a rotation or a removal needs it: the token, what is known of
/// it, and the names of this install's other tokens of the account still to revoke.
package struct StoredAPIToken: Sendable, Equatable {
    package let accountID: Int64
    package let token: Secret
    package let details: APITokenDetails
    /// Names this install recorded for the account besides the current one (`stale_api_tokens`).
    package let staleNames: [String]
    /// The keyring item that holds the token (its `account` attribute); nil when the database does.
    package let keyringItem: String?
    /// The keyring item that holds, or may hold, each stale token, by name: deleted once it is revoked.
    package let staleItems: [String: String]

    package init(
        accountID: Int64, token: Secret, details: APITokenDetails, staleNames: [String], keyringItem: String? = nil,
        staleItems: [String: String] = [:]
    ) {
        self.accountID = accountID
        self.token = token
        self.details = details
        self.staleNames = staleNames
        self.keyringItem = keyringItem
        self.staleItems = staleItems
    }
}

extension StateStore {
    /// Every account's API token with its details and stale names, by account id, in one read.
    /// A token the keyring holds is there when `keyringTokens` (as the run read the keyring,
    /// by account id) has it: the database keeps only its details and the item's name.
    package func storedAPITokens(keyringTokens: [Int64: Secret] = [:]) throws -> [Int64: StoredAPIToken] {
        let read = try access { database in
            try database.reading {
                (
                    tokens: try database.rows(
                        """
                        SELECT t.account_id AS account_id, t.token AS token, t.name AS name, t.expires_at AS expires_at,
                            t.lifetime_seconds AS lifetime_seconds, CASE WHEN t.store = 'keyring' THEN COALESCE(t.keyring_item, a.name) END AS item
                        FROM api_tokens t JOIN accounts a ON a.id = t.account_id
                        """
                    ) {
                        row throws(SQLiteError) in
                        (
                            try row.int64("account_id"), try row.optionalText("token").map(Secret.init), try APITokenDetails(row: row),
                            try row.optionalText("item")
                        )
                    },
                    stale: try Self.staleTokens(database)
                )
            }
        }
        return Dictionary(
            read.tokens.compactMap { id, token, details, item -> (Int64, StoredAPIToken)? in
                guard let token = token ?? item.flatMap({ _ in keyringTokens[id] }) else { return nil }
                let stale = read.stale[id] ?? []
                return (
                    id,
                    StoredAPIToken(
                        accountID: id, token: token, details: details, staleNames: stale.map(\.name), keyringItem: item,
                        staleItems: Self.items(of: stale))
                )
            },
            uniquingKeysWith: { first, _ in first })
    }

    /// What is recorded of every account's API token, wherever it is kept, by account id: its
    /// details and the stale names, all a rotation decides on. No token is read.
    /// `renewable`: only the tokens a rotation could concern, those with a name or stale names
    /// (a token pasted without a name is never renewed nor cleaned up after).
    package func apiTokenRecords(renewable: Bool = false) throws -> [Int64: (details: APITokenDetails, staleNames: [String])] {
        try access { database in
            try database.reading {
                let stale = try Self.staleTokens(database)
                let rows = try database.rows(
                    """
                    SELECT account_id, name, expires_at, lifetime_seconds FROM api_tokens t
                    WHERE NOT ?1 OR name IS NOT NULL OR EXISTS (SELECT 1 FROM stale_api_tokens s WHERE s.account_id = t.account_id)
                    """, .integer(renewable ? 1 : 0)
                ) { row throws(SQLiteError) in (try row.int64("account_id"), try APITokenDetails(row: row)) }
                return Dictionary(
                    rows.map { id, details in (id, (details: details, staleNames: stale[id]?.map(\.name) ?? [])) },
                    uniquingKeysWith: { first, _ in first })
            }
        }
    }

    /// Every stale name with its keyring item, by account id, in the order recorded.
    private static func staleTokens(_ database: Database, ofAccount id: Int64? = nil) throws(SQLiteError) -> [Int64: [(name: String, item: String?)]]
    {
        let rows = try database.rows(
            "SELECT account_id, name, keyring_item FROM stale_api_tokens WHERE ?1 IS NULL OR account_id = ?1 ORDER BY recorded_at, name",
            .optionalInteger(id)
        ) { row throws(SQLiteError) in
            (id: try row.int64("account_id"), name: try row.text("name"), item: try row.optionalText("keyring_item"))
        }
        return Dictionary(grouping: rows, by: \.id).mapValues { $0.map { (name: $0.name, item: $0.item) } }
    }

    private static func items(of stale: [(name: String, item: String?)]) -> [String: String] {
        Dictionary(stale.compactMap { entry in entry.item.map { (entry.name, $0) } }, uniquingKeysWith: { first, _ in first })
    }

    /// The account's API token as `storedAPITokens` gives it, or with `token` when the keyring
    /// holds it (the database keeps only its details then); nil when it has none.
    package func storedAPIToken(ofAccount id: Int64, token given: Secret? = nil) throws -> StoredAPIToken? {
        guard let token = try given ?? apiToken(ofAccount: id), let details = try apiTokenDetails(ofAccount: id) else { return nil }
        let stale = try access { database throws(SQLiteError) in try Self.staleTokens(database, ofAccount: id)[id] ?? [] }
        return StoredAPIToken(
            accountID: id, token: token, details: details, staleNames: stale.map(\.name), keyringItem: try keyringItems()[id],
            staleItems: Self.items(of: stale))
    }

    /// Records names of the account's tokens that this install minted, or is about to mint,
    /// and that are not its current token: runs revoke them, and delete `keyringItem` (the
    /// item a successor is about to be written to) once they have. Returns false, recording
    /// nothing, when the account is gone (a removal deleted it meanwhile) or, with
    /// `unlessRemoving`, being removed.
    @discardableResult
    package func recordStaleTokenNames(
        _ names: [String], ofAccount id: Int64, keyringItem: String? = nil, unlessRemoving: Bool = false, now: Date = Date()
    ) throws -> Bool {
        try write { database in
            let state = try database.row("SELECT state FROM accounts WHERE id = ?", .integer(id)) { row throws(SQLiteError) in
                try row.text("state")
            }
            guard let state, !unlessRemoving || state != AccountState.removing.rawValue else { return false }
            for name in names {
                try database.run(
                    """
                    INSERT INTO stale_api_tokens (account_id, name, recorded_at, keyring_item) VALUES (?, ?, ?, ?)
                    ON CONFLICT (account_id, name) DO UPDATE SET keyring_item = COALESCE(excluded.keyring_item, keyring_item)
                    """, .integer(id), .text(name), .text(Timestamp.format(now)), .optionalText(keyringItem))
            }
            return true
        }
    }

    /// Records when the account's token expires, as the server answered, while its current
    /// token is still the one named `name`.
    package func setAPITokenExpiry(_ expiresAt: Date, ofAccount id: Int64, named name: String) throws {
        try write { database in
            try database.run(
                "UPDATE api_tokens SET expires_at = ? WHERE account_id = ? AND name = ?", .text(Timestamp.format(expiresAt)), .integer(id),
                .text(name))
        }
    }

    /// Says that the keyring did not take the token recorded as stale under `name`: no item is
    /// left to delete for it. The name stays recorded (its token may be valid) until a sign-in
    /// makes it current or a run revokes it.
    package func releaseStaleKeyringItem(named name: String, ofAccount id: Int64) throws {
        try write { database in
            try database.run("UPDATE stale_api_tokens SET keyring_item = NULL WHERE account_id = ? AND name = ?", .integer(id), .text(name))
        }
    }

    /// Forgets stale names: revoked, or no longer on the server. `keepingItems`: a name whose
    /// keyring item is left to delete stays.
    package func forgetStaleTokenNames(_ names: [String], ofAccount id: Int64, keepingItems: Bool = false) throws {
        let condition = keepingItems ? " AND keyring_item IS NULL" : ""
        try write { database in
            for name in names {
                try database.run("DELETE FROM stale_api_tokens WHERE account_id = ? AND name = ?" + condition, .integer(id), .text(name))
            }
        }
    }

    /// Replaces the API token of an account not being removed whose current token is still the one named
    /// `previous` by its successor: `token` kept in the database, or, with `keyringItem`, the
    /// keyring item the successor was written to (the token was in the keyring, and the database
    /// keeps only the item's name). In one transaction: the successor's name is no longer
    /// stale, the predecessor's is (with its keyring item), until it is revoked. False, and
    /// nothing written, when the account changed meanwhile (another rotation, a sign-in, a removal).
    package func replaceAPIToken(
        ofAccount id: Int64, named previous: String, with token: Secret, keyringItem: String? = nil, details: APITokenDetails,
        now: Date = Date()
    ) throws -> Bool {
        try write { database in
            let current = try database.row(
                """
                SELECT t.name AS name, a.state AS state, t.store AS store, CASE WHEN t.store = 'keyring' THEN COALESCE(t.keyring_item, a.name) END AS item
                FROM api_tokens t JOIN accounts a ON a.id = t.account_id WHERE t.account_id = ?
                """,
                .integer(id)
            ) { row throws(SQLiteError) in
                (name: try row.optionalText("name"), state: try row.text("state"), item: try row.optionalText("item"))
            }
            guard let current, current.name == previous, current.state != AccountState.removing.rawValue,
                (keyringItem == nil) == (current.item == nil)
            else { return false }
            try database.run(
                "UPDATE api_tokens SET token = ?, keyring_item = ?, name = ?, expires_at = ?, lifetime_seconds = ? WHERE account_id = ?",
                keyringItem == nil ? .text(token.exposedValue) : .null, .optionalText(keyringItem), .optionalText(details.name),
                .optionalText(details.expiresAt.map(Timestamp.format)), .optionalInteger(details.lifetime?.components.seconds), .integer(id))
            try database.run(
                "INSERT OR IGNORE INTO stale_api_tokens (account_id, name, recorded_at, keyring_item) VALUES (?, ?, ?, ?)", .integer(id),
                .text(previous), .text(Timestamp.format(now)), .optionalText(current.item))
            if let name = details.name {
                try database.run("DELETE FROM stale_api_tokens WHERE account_id = ? AND name = ?", .integer(id), .text(name))
            }
            return true
        }
    }

    /// Records that the pre-removal step passed in the removal that began at `removalStartedAt`.
    package func markRemovalStepPassed(ofAccount id: Int64, removalStartedAt: Date?) throws {
        try write { database in
            guard try Self.isRemoving(id, since: removalStartedAt, database) else { return }
            try database.run("UPDATE accounts SET removal_step_passed_for = removal_started_at WHERE id = ?", .integer(id))
        }
    }

    /// Whether the pre-removal step passed in the removal that began at `removalStartedAt`.
    package func removalStepPassed(ofAccount id: Int64, removalStartedAt: Date?) throws -> Bool {
        try access { database in
            guard try Self.isRemoving(id, since: removalStartedAt, database) else { return false }
            return try database.row(
                "SELECT removal_step_passed_for IS removal_started_at AS passed FROM accounts WHERE id = ? AND removal_step_passed_for IS NOT NULL",
                .integer(id)
            ) { row throws(SQLiteError) in try row.int("passed") == 1 } ?? false
        }
    }

    /// True while the account is in the removal that began at `removalStartedAt`.
    private static func isRemoving(_ id: Int64, since removalStartedAt: Date?, _ database: Database) throws(SQLiteError) -> Bool {
        let current = try database.row("SELECT state, removal_started_at FROM accounts WHERE id = ?", .integer(id)) { row throws(SQLiteError) in
            (state: try row.text("state"), startedAt: try row.optionalText("removal_started_at"))
        }
        guard let current else { return false }
        return current.state == AccountState.removing.rawValue && Timestamp.parse(current.startedAt) == removalStartedAt
    }
}
