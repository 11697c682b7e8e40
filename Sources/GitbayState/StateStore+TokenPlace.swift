import GitbaySupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Where the accounts' API tokens live, and their move from the database into the keyring.
extension StateStore {
    /// Stores an account's API token (`token`, or only the reference when `place` is the
    /// keyring: `keyringItem`, or when nil the item named after the account) with what is
    /// known of it, replacing the one before. The name of the one before, when it had another,
    /// is recorded as stale with the keyring item that held it: runs revoke it if it is this
    /// install's and the server still lists it (a rotation's successor the sign-in replaced,
    /// say), and delete the item. A stale token's item that holds this token now is no longer
    /// deleted, and the new token's name is no longer stale unless an item of it is left to
    /// delete (the keyring took it, then the sign-in fell back to the database).
    static func upsertAPIToken(
        _ database: Database, accountID id: Int64, token: Secret, place: TokenPlace, keyringItem: String? = nil, details: APITokenDetails,
        now: Date
    ) throws(SQLiteError) {
        try database.run(
            """
            INSERT OR IGNORE INTO stale_api_tokens (account_id, name, recorded_at, keyring_item)
            SELECT t.account_id, t.name, ?2, CASE WHEN t.store = 'keyring' THEN COALESCE(t.keyring_item, a.name) END
            FROM api_tokens t JOIN accounts a ON a.id = t.account_id
            WHERE t.account_id = ?1 AND t.name IS NOT NULL AND t.name IS NOT ?3
            """,
            .integer(id), .text(Timestamp.format(now)), .optionalText(details.name))
        let item: SQLiteValue = place == .keyring ? .optionalText(keyringItem) : .null
        try database.run(
            """
            INSERT INTO api_tokens (account_id, token, name, expires_at, lifetime_seconds, store, keyring_item) VALUES (?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (account_id) DO UPDATE SET token = excluded.token, name = excluded.name, expires_at = excluded.expires_at,
                lifetime_seconds = excluded.lifetime_seconds, store = excluded.store, keyring_item = excluded.keyring_item
            """,
            .integer(id), place == .keyring ? .null : .text(token.exposedValue), .optionalText(details.name),
            .optionalText(details.expiresAt.map(Timestamp.format)), .optionalInteger(details.lifetime?.components.seconds),
            place == .awaitingKeyring ? .null : .text(place.rawValue), item
        )
        if place == .keyring {
            try database.run(
                """
                UPDATE stale_api_tokens SET keyring_item = NULL
                WHERE account_id = ?1 AND keyring_item = COALESCE(?2, (SELECT name FROM accounts WHERE id = ?1))
                """,
                .integer(id), item)
        }
        // Its name, recorded before the sign-in wrote the keyring, unless an item is left to delete.
        if let name = details.name {
            try database.run(
                "DELETE FROM stale_api_tokens WHERE account_id = ? AND name = ? AND keyring_item IS NULL", .integer(id), .text(name))
        }
    }

    /// Where each account's API token lives, by account id; an account without one is missing.
    package func tokenPlaces() throws -> [Int64: TokenPlace] {
        let rows = try access { database in
            try database.rows("SELECT account_id, store FROM api_tokens") { row throws(SQLiteError) in
                (try row.int64("account_id"), TokenPlace(column: try row.optionalText("store")))
            }
        }
        return Dictionary(rows, uniquingKeysWith: { first, _ in first })
    }

    /// After the keyring stored `token` for the account: the database keeps only the
    /// reference, if the token there is still that one and still awaits the keyring (a
    /// sign-in meanwhile wins). Then checkpoints the WAL so that the token's bytes are gone
    /// from the files (`secure_delete` zeroes freed pages). Returns whether the row changed,
    /// and whether the bytes are gone (false while another connection's read kept the WAL
    /// from being checkpointed: they leave at the next checkpoint).
    package func keepOnlyReference(ofAccount id: Int64, token: Secret, keyringItem: String? = nil) throws -> (moved: Bool, wiped: Bool) {
        let moved = try write { database in
            try database.run(
                "UPDATE api_tokens SET token = NULL, store = 'keyring', keyring_item = ? WHERE account_id = ? AND token = ? AND store IS NULL",
                .optionalText(keyringItem), .integer(id), .text(token.exposedValue))
            return database.changes > 0
        }
        guard moved else { return (false, false) }
        return (true, try checkpoint())
    }

    /// Points the account's token at the keyring item `item`, if the keyring holds it in the
    /// item named after the account (an earlier version wrote it); false when it no longer
    /// does (a sign-in or a rotation meanwhile).
    package func pointAtKeyringItem(_ item: String, ofAccount id: Int64) throws -> Bool {
        try write { database in
            try database.run(
                "UPDATE api_tokens SET keyring_item = ? WHERE account_id = ? AND store = 'keyring' AND keyring_item IS NULL", .text(item),
                .integer(id))
            return database.changes > 0
        }
    }
}
