import GitbaySupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension StateStore {
    /// Binds the install to `machine`. A database whose install was made on another machine
    /// (a copied home, a restored backup, a migrated Mac) becomes a new install here: a new
    /// install marker, no records, no previous tokens, no device token, label and leases, and
    /// no service runs of the other machine. The accounts and their API tokens stay. A row the
    /// other machine made is then neither recorded nor marked here, so it is never touched:
    /// a copy of the proof is not proof. Returns true when the database moved.
    ///
    /// An install made before machines were recorded is bound to the first machine that opens
    /// it; without `machine` (none could be read) nothing is bound or checked.
    static func bind(_ database: Database, to machine: MachineIdentity?, now: Date) throws -> Bool {
        guard let machine else { return false }
        // Read first: an open of the machine's own install writes nothing.
        guard
            let stored = try database.row(
                "SELECT machine FROM device WHERE id = 1", map: { row throws(SQLiteError) in try row.optionalText("machine") }),
            stored != machine.hash
        else { return false }
        let moved = try database.transaction { () throws -> Bool in
            // Checked again under the write lock: another process may have bound it meanwhile.
            let bound =
                try database.row("SELECT machine FROM device WHERE id = 1", map: { row throws(SQLiteError) in try row.optionalText("machine") })
                ?? nil
            if bound == machine.hash { return false }
            guard bound != nil else {
                try database.run("UPDATE device SET machine = ? WHERE id = 1", .text(machine.hash))
                return false
            }
            for table in ["registrations", "device_token_history", "account_leases", "unattended_runs", "stale_api_tokens"] {
                try database.run("DELETE FROM \(table)")
            }
            // The API tokens are the other install's too, which signs in with them: this one
            // neither revokes them at a sign-out nor rotates them (their names are forgotten),
            // and says at a sign-out that they stay valid on the server.
            try database.run("UPDATE api_tokens SET name = NULL, lifetime_seconds = NULL")
            try database.run("UPDATE accounts SET removal_step_passed_for = NULL")
            try database.run(
                """
                UPDATE device SET token = NULL, token_set_at = NULL, label = ?, install_marker = ?, machine = ?, moved_at = ?
                WHERE id = 1
                """,
                .text(DeviceDefaults.hostLabel()), .text(DeviceDefaults.newInstallMarker()), .text(machine.hash),
                .text(Timestamp.format(now)))
            try forgetVerdicts(database)
            return true
        }
        // The other machine's device token is deleted: its bytes leave the files too.
        if moved { _ = try database.row("PRAGMA wal_checkpoint(TRUNCATE)") { _ in true } }
        return moved
    }
}

extension StateStore {
    /// Rewrites instance URLs (and the account names made from them) stored in a spelling that
    /// is no longer their canonical one (`InstanceURL.canonicalHost`: a final dot, an IPv4
    /// address with leading zeros). An account whose canonical name another account already
    /// has is left as stored: the two are one account signed in twice, which the holder rule
    /// treats as one instance all the same.
    static func canonicaliseInstances(_ database: Database) throws {
        let stored = try database.rows("SELECT DISTINCT instance FROM accounts") { row throws(SQLiteError) in try row.text("instance") }
        let respelled = stored.compactMap { text -> (String, InstanceURL)? in
            guard let url = try? InstanceURL(parsing: text), url.description != text else { return nil }
            return (text, url)
        }
        guard !respelled.isEmpty else { return }
        try database.transaction {
            for (text, url) in respelled {
                let accounts = try database.rows("SELECT id, username FROM accounts WHERE instance = ?", .text(text)) { row throws(SQLiteError) in
                    (try row.int64("id"), try row.text("username"))
                }
                for (id, username) in accounts {
                    let name = AccountRecord.name(username: username, instance: url)
                    guard try database.row("SELECT 1 FROM accounts WHERE name = ?", .text(name), map: { _ in true }) == nil else { continue }
                    try database.run(
                        "UPDATE accounts SET instance = ?, name = ? WHERE id = ?", .text(url.description), .text(name), .integer(id))
                }
                try database.run("INSERT OR IGNORE INTO instances (instance) VALUES (?)", .text(url.description))
                try database.run(
                    """
                    UPDATE instances SET preferred_account_id = (SELECT preferred_account_id FROM instances WHERE instance = ?1)
                    WHERE instance = ?2 AND preferred_account_id IS NULL
                    """, .text(text), .text(url.description))
            }
        }
    }
}
