import FoundationEssentials
import GitbaySupport

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
        guard let stored = try database.row("SELECT machine FROM device WHERE id = 1", map: { $0.text(0) }), stored != machine.hash
        else { return false }
        let moved = try database.transaction { () throws -> Bool in
            // Checked again under the write lock: another process may have bound it meanwhile.
            let bound = try database.row("SELECT machine FROM device WHERE id = 1", map: { $0.text(0) }) ?? nil
            if bound == machine.hash { return false }
            guard bound != nil else {
                try database.run("UPDATE device SET machine = ? WHERE id = 1", .text(machine.hash))
                return false
            }
            for table in ["registrations", "device_token_history", "account_leases", "unattended_runs"] {
                try database.run("DELETE FROM \(table)")
            }
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
        if moved { _ = try database.row("PRAGMA wal_checkpoint(TRUNCATE)") { $0.integer(0) } }
        return moved
    }
}
