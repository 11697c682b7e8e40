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

    package init(accountID: Int64, token: Secret, details: APITokenDetails, staleNames: [String]) {
        self.accountID = accountID
        self.token = token
        self.details = details
        self.staleNames = staleNames
    }
}

extension StateStore {
    /// Every account's API token with its details and stale names, by account id, in one read.
    package func storedAPITokens() throws -> [Int64: StoredAPIToken] {
        let read = try access { database in
            try database.reading {
                (
                    tokens: try database.rows(
                        // A token the keyring holds is not rotated: the database has only its details.
                        "SELECT account_id, token, name, expires_at, lifetime_seconds FROM api_tokens WHERE token IS NOT NULL"
                    ) {
                        row throws(SQLiteError) in
                        (try row.int64("account_id"), Secret(try row.text("token")), try APITokenDetails(row: row))
                    },
                    stale: try database.rows("SELECT account_id, name FROM stale_api_tokens ORDER BY recorded_at, name") {
                        row throws(SQLiteError) in (try row.int64("account_id"), try row.text("name"))
                    }
                )
            }
        }
        let stale = Dictionary(grouping: read.stale, by: \.0).mapValues { $0.map(\.1) }
        return Dictionary(
            read.tokens.map { id, token, details in (id, StoredAPIToken(accountID: id, token: token, details: details, staleNames: stale[id] ?? []))
            },
            uniquingKeysWith: { first, _ in first })
    }

    /// The account's API token as `storedAPITokens` gives it, or with `token` when the keyring
    /// holds it (the database keeps only its details then); nil when it has none.
    package func storedAPIToken(ofAccount id: Int64, token given: Secret? = nil) throws -> StoredAPIToken? {
        guard let token = try given ?? apiToken(ofAccount: id), let details = try apiTokenDetails(ofAccount: id) else { return nil }
        let stale = try access { database in
            try database.rows("SELECT name FROM stale_api_tokens WHERE account_id = ? ORDER BY recorded_at, name", bound: [.integer(id)]) {
                row throws(SQLiteError) in try row.text("name")
            }
        }
        return StoredAPIToken(accountID: id, token: token, details: details, staleNames: stale)
    }

    /// Records names of the account's tokens that this install minted, or is about to mint,
    /// and that are not its current token: runs revoke them.
    package func recordStaleTokenNames(_ names: [String], ofAccount id: Int64, now: Date = Date()) throws {
        try write { database in
            for name in names {
                try database.run(
                    "INSERT OR IGNORE INTO stale_api_tokens (account_id, name, recorded_at) VALUES (?, ?, ?)", .integer(id), .text(name),
                    .text(Timestamp.format(now)))
            }
        }
    }

    /// Forgets stale names: revoked, or no longer on the server.
    package func forgetStaleTokenNames(_ names: [String], ofAccount id: Int64) throws {
        try write { database in
            for name in names { try database.run("DELETE FROM stale_api_tokens WHERE account_id = ? AND name = ?", .integer(id), .text(name)) }
        }
    }

    /// Replaces the API token of an account not being removed whose current token is still the one named
    /// `previous` by its successor: the successor's name is no longer stale, the predecessor's
    /// is (until it is revoked). False, and nothing written, when the account changed meanwhile
    /// (another rotation, a sign-in, a removal).
    package func replaceAPIToken(ofAccount id: Int64, named previous: String, with token: Secret, details: APITokenDetails, now: Date = Date())
        throws -> Bool
    {
        try write { database in
            let current = try database.row(
                "SELECT t.name AS name, a.state AS state FROM api_tokens t JOIN accounts a ON a.id = t.account_id WHERE t.account_id = ?",
                .integer(id)
            ) { row throws(SQLiteError) in (name: try row.optionalText("name"), state: try row.text("state")) }
            guard let current, current.name == previous, current.state != AccountState.removing.rawValue else { return false }
            try database.run(
                "UPDATE api_tokens SET token = ?, name = ?, expires_at = ?, lifetime_seconds = ? WHERE account_id = ?", .text(token.exposedValue),
                .optionalText(details.name), .optionalText(details.expiresAt.map(Timestamp.format)),
                .optionalInteger(details.lifetime?.components.seconds), .integer(id))
            try database.run(
                "INSERT OR IGNORE INTO stale_api_tokens (account_id, name, recorded_at) VALUES (?, ?, ?)", .integer(id), .text(previous),
                .text(Timestamp.format(now)))
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
