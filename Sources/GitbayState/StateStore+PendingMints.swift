import GitbaySupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The names of tokens `login --ssh` mints, recorded before the mint (`pending_mints`): the
/// account is not known until the token answers `whoami`, and a login stopped in between
/// would leave a token nothing names. A name stays pending until a run of the account whose
/// token it is finds it listed and revokes it: the accounts signed in there when it was
/// recorded may all be another user's, whose revocation of that name answers 404.
extension StateStore {
    /// Records `name`, about to be minted on `instance` over `destination`.
    package func recordPendingMint(_ name: String, instance: InstanceURL, destination: String, now: Date) throws {
        try write { database in
            try database.run(
                "INSERT OR IGNORE INTO pending_mints (instance, ssh_destination, name, recorded_at) VALUES (?, ?, ?, ?)",
                .text(instance.description), .text(destination), .text(name), .text(Timestamp.format(now)))
        }
    }

    /// The names recorded for `instance`, over any destination, oldest first.
    package func pendingMints(instance: InstanceURL) throws -> [String] {
        try access { database in
            try database.rows(
                "SELECT name FROM pending_mints WHERE instance = ? ORDER BY recorded_at, name", .text(instance.description)
            ) { row throws(SQLiteError) in try row.text("name") }
        }
    }

    /// Forgets `name` (the mint did not happen, or its token was revoked again).
    package func forgetPendingMint(_ name: String, instance: InstanceURL, destination: String) throws {
        try write { database in
            try database.run(
                "DELETE FROM pending_mints WHERE instance = ? AND ssh_destination = ? AND name = ?", .text(instance.description),
                .text(destination), .text(name))
        }
    }

    /// Forgets `name` for `instance`, over any destination: its token was revoked.
    package func forgetPendingMint(_ name: String, instance: InstanceURL) throws {
        try write { database in
            try database.run("DELETE FROM pending_mints WHERE instance = ? AND name = ?", .text(instance.description), .text(name))
        }
    }

    /// Makes every name recorded for `instance` a stale token name of the account `id` just
    /// signed in there (runs and `remove-account` revoke those), except `current`, its own
    /// token's name, which is forgotten here; the others stay pending until revoked, since the
    /// account may not be their user's. Returns the names made stale.
    @discardableResult
    package func adoptPendingMints(instance: InstanceURL, ofAccount id: Int64, current: String?, now: Date) throws -> [String] {
        try write { database in
            let names = try database.rows(
                "SELECT DISTINCT name FROM pending_mints WHERE instance = ? ORDER BY name", .text(instance.description)
            ) { row throws(SQLiteError) in try row.text("name") }
            let stale = names.filter { $0 != current }
            for name in stale {
                try database.run(
                    "INSERT OR IGNORE INTO stale_api_tokens (account_id, name, recorded_at) VALUES (?, ?, ?)", .integer(id), .text(name),
                    .text(Timestamp.format(now)))
            }
            if let current {
                try database.run("DELETE FROM pending_mints WHERE instance = ? AND name = ?", .text(instance.description), .text(current))
            }
            return stale
        }
    }
}
