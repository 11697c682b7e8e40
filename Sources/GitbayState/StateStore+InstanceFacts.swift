import GitbaySupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Everything the choice of an instance's token holder depends on, read in one transaction:
/// the device, the instance's accounts, their last verdicts and the preferred account.
package struct InstanceFacts: Sendable {
    package let hasDeviceToken: Bool
    package let tokenGeneration: Int
    package let label: String
    package let accounts: [AccountRecord]
    package let statuses: [Int64: AccountStatusRecord]
    /// The account preferred on each server, by the server's first URL.
    package let preferred: [InstanceURL: Int64]
    /// Which instance URLs name one server.
    package let names: ServerNames
}

extension StateStore {
    /// The facts of the instance `id` belongs to; nil once the account is signed out.
    package func instanceFacts(ofAccount id: Int64) throws -> InstanceFacts? {
        try access { database in try Self.instanceFacts(ofAccount: id, database) }
    }

    /// Saves a run's verdict only while `stillValid` holds for the instance's facts as they are
    /// now; false (and nothing written) when it does not. The account's doubts raised before
    /// the pass's round began (`RunFacts.doubtMark`) are settled with it.
    package func saveStatus(
        _ status: AccountStatusRecord, ofAccount id: Int64, settlingDoubtsThrough mark: Int64,
        if stillValid: @Sendable (InstanceFacts?) -> Bool
    ) throws -> Bool {
        try write { database in
            guard stillValid(try Self.instanceFacts(ofAccount: id, database)) else { return false }
            try Self.insertStatus(status, ofAccount: id, database)
            try Self.settleDoubt(ofAccount: id, raisedThrough: mark, database)
            return true
        }
    }

    /// Reads only the account's server (every URL it was found under): who holds the token
    /// there depends on nothing else.
    static func instanceFacts(ofAccount id: Int64, _ database: Database) throws(SQLiteError) -> InstanceFacts? {
        guard
            let instance = try database.row(
                "SELECT instance FROM accounts WHERE id = ?", .integer(id), map: { row throws(SQLiteError) in try row.text("instance") })
        else { return nil }
        let names = try serverNames(database)
        guard let url = try? InstanceURL(parsing: instance), names.names(of: url).count > 1 else {
            return try facts(database, names: names, "instance = ?", .text(instance))
        }
        let urls = names.names(of: url).map { SQLiteValue.text($0.description) }
        return try facts(database, names: names, "instance IN (\(urls.map { _ in "?" }.joined(separator: ", ")))", bound: urls)
    }

    /// The facts of every instance at once: who holds the token on each.
    static func allFacts(_ database: Database) throws(SQLiteError) -> InstanceFacts? {
        try facts(database, names: try serverNames(database), "1")
    }

    private static func facts(
        _ database: Database, names: ServerNames, _ condition: String, _ arguments: SQLiteValue...
    ) throws(SQLiteError) -> InstanceFacts? {
        try facts(database, names: names, condition, bound: arguments)
    }

    /// The facts of the accounts matching `condition`, with the device's; nil without a device row.
    private static func facts(
        _ database: Database, names: ServerNames, _ condition: String, bound arguments: [SQLiteValue]
    ) throws(SQLiteError) -> InstanceFacts? {
        guard
            let device = try database.row(
                "SELECT token IS NOT NULL AS has_token, token_generation, label FROM device WHERE id = 1",
                map: { row throws(SQLiteError) in
                    (hasToken: try row.bool("has_token"), generation: try row.int("token_generation"), label: try row.text("label"))
                })
        else { return nil }
        let accounts = try Self.accounts(
            database, "SELECT \(accountColumns) FROM accounts WHERE \(condition) ORDER BY signed_in_at, id", bound: arguments)
        let conditions = try database.rows(
            "SELECT account_id, condition FROM account_status WHERE account_id IN (SELECT id FROM accounts WHERE \(condition))",
            bound: arguments,
            map: { row throws(SQLiteError) in (try row.int64("account_id"), AccountCondition(rawValue: try row.text("condition")) ?? .pending) }
        )
        return InstanceFacts(
            hasDeviceToken: device.hasToken, tokenGeneration: device.generation, label: device.label, accounts: accounts,
            statuses: Dictionary(conditions.map { ($0.0, AccountStatusRecord(condition: $0.1)) }, uniquingKeysWith: { first, _ in first }),
            preferred: try preferredAccounts(database, names: names), names: names
        )
    }
}
