import FoundationEssentials
import GitbaySupport

// Each record read from its row by column name: a query may list the columns in any order (or
// alias them to these names), and a field added to a record is read here, by its column's name.

extension AccountRecord {
    init(row: Row) throws(SQLiteError) {
        var instances: [String: InstanceURL] = [:]
        try self.init(row: row, instances: &instances)
    }

    /// The account in `row`, its instance taken from `instances` when parsed before: many
    /// accounts share a few instances.
    init(row: Row, instances: inout [String: InstanceURL]) throws(SQLiteError) {
        let instanceText = try row.text("instance")
        let instance: InstanceURL
        if let parsed = instances[instanceText] {
            instance = parsed
        } else {
            guard let parsed = try? InstanceURL(parsing: instanceText) else {
                preconditionFailure("stored instance URL does not parse: \(instanceText)")
            }
            instances[instanceText] = parsed
            instance = parsed
        }
        self.init(
            id: try row.int64("id"), instance: instance, username: try row.text("username"), name: try row.text("name"),
            state: AccountState(rawValue: try row.text("state")) ?? .active, signedInAt: try row.date("signed_in_at"),
            removalStartedAt: try row.optionalDate("removal_started_at"))
    }
}

extension InstanceRecord {
    /// Nil for an instance URL that no longer parses.
    init?(row: Row) throws(SQLiteError) {
        let text = try row.text("instance")
        let preferred = try row.optionalInt64("preferred_account_id")
        guard let instance = try? InstanceURL(parsing: text) else { return nil }
        self.init(instance: instance, preferredAccountID: preferred)
    }
}

extension RetiredToken {
    init(row: Row) throws(SQLiteError) {
        let prefix = try row.text("prefix")
        self.init(
            generation: try row.int("generation"), prefix: prefix,
            token: try row.tokenIdentity(fingerprint: "fingerprint", length: "length", shown: "shown", prefix: prefix),
            retiredAt: try row.date("retired_at"))
    }
}

extension DeviceRecord {
    /// The device in `row`, with the tokens it held before (read from their own table).
    init(row: Row, history: [RetiredToken]) throws(SQLiteError) {
        self.init(
            token: try row.optionalText("token").map(Secret.init), generation: try row.int("token_generation"),
            label: try row.text("label"), installMarker: try row.text("install_marker"),
            tokenSetAt: try row.optionalDate("token_set_at"), history: history)
        machine = try row.optionalText("machine")
        movedAt = try row.optionalDate("moved_at")
    }
}
