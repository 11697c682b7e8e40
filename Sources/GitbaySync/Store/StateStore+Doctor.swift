import FoundationEssentials

extension StateStore {
    /// The device token and its generation as stored, without creating the device row (nil
    /// when there is none yet): for checks that must not change the database.
    public func storedDeviceToken() throws -> (token: Secret?, generation: Int)? {
        try access { database in
            try database.row("SELECT token, token_generation FROM device WHERE id = 1") { row in
                (row.text(0).map(Secret.init), Int(row.integer(1)))
            }
        }
    }
}
