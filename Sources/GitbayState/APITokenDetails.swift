#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What is known of an account's API token besides the token itself: the name it was minted
/// under, when it stops working and how long it was minted to live. Each is nil when not known
/// (a pasted token given no name, a token that never expires, one stored by an earlier version).
package struct APITokenDetails: Sendable, Equatable {
    package var name: String?
    package var expiresAt: Date?
    /// The `--ttl` it was minted with: a rotation mints its successor for as long.
    package var lifetime: Duration?

    package init(name: String? = nil, expiresAt: Date? = nil, lifetime: Duration? = nil) {
        self.name = name
        self.expiresAt = expiresAt
        self.lifetime = lifetime
    }

    /// Nothing known.
    package static let unknown = APITokenDetails()
}

extension StateStore {
    /// What is recorded of each API token with a name, an expiry and a lifetime, by account id:
    /// the only tokens whose pinned name can lapse unrenewed (`TokenRotation.pinnedLapseWarning`
    /// needs all three). The others are left to the query: a run whose tokens have none of these
    /// decodes no row.
    package func namedExpiringTokenDetails() throws -> [Int64: APITokenDetails] {
        try access { database in
            let rows = try database.rows(
                "SELECT account_id, name, expires_at, lifetime_seconds FROM api_tokens WHERE name IS NOT NULL AND expires_at IS NOT NULL AND lifetime_seconds > 0"
            ) { row throws(SQLiteError) in (try row.int64("account_id"), try APITokenDetails(row: row)) }
            return Dictionary(rows, uniquingKeysWith: { first, _ in first })
        }
    }
}
