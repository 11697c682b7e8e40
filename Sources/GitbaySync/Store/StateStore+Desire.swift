import FoundationEssentials

/// What a run wants for an account, and the device facts it planned with. A run compares it
/// before each write and before recording its verdict, so that a change made meanwhile (a new
/// token, a pause, another holder) is picked up instead of undone.
public struct DesireSnapshot: Sendable, Equatable {
    /// Nil when the account is not to be reconciled at all (its token was refused).
    public let desire: Desire?
    public let generation: Int
    public let label: String
}

extension StateStore {
    /// The account's desire as a run would decide it now; nil once the account is signed out.
    public func desireSnapshot(ofAccount id: Int64) throws -> DesireSnapshot? {
        try access { database in try Self.desireSnapshot(ofAccount: id, database) }
    }

    /// Saves a run's verdict only while the account's desire is still `snapshot`; false (and
    /// nothing written) when it changed meanwhile.
    public func saveStatus(_ status: AccountStatusRecord, ofAccount id: Int64, ifStill snapshot: DesireSnapshot) throws -> Bool {
        try write { database in
            guard try Self.desireSnapshot(ofAccount: id, database) == snapshot else { return false }
            try Self.insertStatus(status, ofAccount: id, database)
            return true
        }
    }

    /// Reads only the account's instance: who holds the token there depends on nothing else.
    static func desireSnapshot(ofAccount id: Int64, _ database: Database) throws(SQLiteError) -> DesireSnapshot? {
        guard let device = try database.row("SELECT token IS NOT NULL, token_generation, label FROM device WHERE id = 1", map: { row in
            (hasToken: row.integer(0) != 0, generation: Int(row.integer(1)), label: row.requiredText(2))
        }), let instance = try database.row("SELECT instance FROM accounts WHERE id = ?", .integer(id), map: { $0.requiredText(0) })
        else { return nil }
        let accounts = try database.rows(
            "SELECT \(accountColumns) FROM accounts WHERE instance = ? ORDER BY signed_in_at, id", .text(instance), map: account
        )
        let conditions = try database.rows(
            "SELECT account_id, condition FROM account_status WHERE account_id IN (SELECT id FROM accounts WHERE instance = ?)",
            .text(instance), map: { ($0.integer(0), AccountCondition(rawValue: $0.requiredText(1)) ?? .pending) }
        )
        let preferred = try database.row(
            "SELECT preferred_account_id FROM instances WHERE instance = ?", .text(instance), map: { $0.optionalInteger(0) }
        ) ?? nil
        let entries = RunSchedule.entries(
            accounts: accounts, statuses: Dictionary(conditions.map { ($0.0, AccountStatusRecord(condition: $0.1)) }, uniquingKeysWith: { first, _ in first }),
            preferred: accounts.first.flatMap { account in preferred.map { [account.instance: $0] } } ?? [:],
            hasDeviceToken: device.hasToken, honourBackoff: false, now: Date()
        )
        let desire: Desire? = switch entries.first(where: { $0.account.id == id }) {
        case .reconcile(_, let desire)?: desire
        case .skip?, nil: nil
        }
        return DesireSnapshot(desire: desire, generation: device.generation, label: device.label)
    }
}
