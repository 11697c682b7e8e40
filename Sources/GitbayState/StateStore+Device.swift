import GitbaySupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension StateStore {
    /// This device, creating its row (host-name label, `installMarker` or a fresh one) on first
    /// use. A marker chosen before the database existed (the name of a token minted for this
    /// install carries it) is given as `installMarker`; a row already there keeps its own.
    package func device(installMarker: String? = nil) throws -> DeviceRecord {
        // Reading needs no write transaction; only the first use creates the row.
        if let device = try access({ database in try Self.readDevice(database) }) { return device }
        return try write { database in try Self.loadDevice(database, machine: machine, installMarker: installMarker) }
    }

    /// The device row, created first when missing (bound to `machine`). Call inside a write
    /// transaction.
    private static func loadDevice(
        _ database: Database, machine: MachineIdentity? = nil, installMarker: String? = nil
    ) throws(SQLiteError) -> DeviceRecord {
        if let device = try readDevice(database) { return device }
        try database.run(
            "INSERT INTO device (id, token, token_generation, label, install_marker, machine) VALUES (1, NULL, 0, ?, ?, ?)",
            .text(DeviceDefaults.hostLabel()), .text(installMarker ?? DeviceDefaults.newInstallMarker()), .optionalText(machine?.hash)
        )
        return try readDevice(database)!
    }

    static func readDevice(_ database: Database) throws(SQLiteError) -> DeviceRecord? {
        let history = try database.rows(
            "SELECT generation, prefix, retired_at, fingerprint, length, shown FROM device_token_history ORDER BY generation",
            map: RetiredToken.init(row:))
        return try database.row(
            "SELECT token, token_generation, label, install_marker, token_set_at, machine, moved_at FROM device WHERE id = 1"
        ) { row throws(SQLiteError) in try DeviceRecord(row: row, history: history) }
    }

    /// Sets the push token (a rotation when another one was set: the old one joins the
    /// history) and, when given, the label. Any change forgets every remembered list tag.
    @discardableResult
    package func setDeviceToken(_ token: Secret, label: String?, now: Date = Date()) throws -> DeviceRecord {
        try write { database in
            let current = try Self.loadDevice(database, machine: machine)
            var changed = false
            if current.token != token {
                try Self.forgetVerdicts(database)
                if let old = current.token {
                    try Self.retire(old, generation: current.generation, database, now: now)
                }
                try database.run(
                    "UPDATE device SET token = ?, token_generation = token_generation + 1, token_set_at = ? WHERE id = 1",
                    .text(token.exposedValue), .text(Timestamp.format(now))
                )
                changed = true
            }
            if let label, label != current.label {
                try database.run("UPDATE device SET label = ? WHERE id = 1", .text(label))
                changed = true
            }
            if changed {
                try database.run("UPDATE account_status SET list_etag = NULL, etag_basis = NULL")
            }
            return try Self.loadDevice(database, machine: machine)
        }
    }

    /// Forgets the push token (it joins the history, so rows made with it stay recognisable).
    package func clearDeviceToken(now: Date = Date()) throws {
        try write { database in
            let current = try Self.loadDevice(database, machine: machine)
            if let old = current.token {
                try Self.retire(old, generation: current.generation, database, now: now)
            }
            try database.run("UPDATE device SET token = NULL, token_set_at = NULL WHERE id = 1")
            try Self.forgetVerdicts(database)
        }
        try checkpoint()
    }
}

extension StateStore {
    /// Keeps what identifies a token that stops being current, never the token itself.
    fileprivate static func retire(_ token: Secret, generation: Int, _ database: Database, now: Date) throws(SQLiteError) {
        let identity = TokenIdentity(of: token)
        try database.run(
            """
            INSERT OR REPLACE INTO device_token_history (generation, prefix, retired_at, fingerprint, length, shown)
            VALUES (?, ?, ?, ?, ?, ?)
            """,
            .int(generation), .text(token.prefix()), .text(Timestamp.format(now)), .optionalText(identity.fingerprint),
            .optionalInt(identity.length), .text(identity.shown)
        )
    }
}
