/// What an account should have on its server, decided before looking at the server.
public enum Desire: Sendable, Equatable {
    /// Exactly one row with the current token.
    case hold
    /// Another account of the instance holds the token (the server gives it to one account):
    /// no rows of old tokens, and the current token's row is left for the holder to take.
    case shadowed(by: String)
    /// No row of ours at all (paused, being removed, or no device token).
    case release
}

/// Everything the diff looks at for one account.
public struct PlanInput: Sendable {
    public var desire: Desire
    /// The current token's 8-byte prefix and full length, or nil when no token is set.
    public var currentToken: (prefix: String, length: Int, generation: Int)?
    /// Prefixes of the tokens this device held before.
    public var oldPrefixes: [String]
    /// The label the device's rows should carry, install marker included.
    public var serverLabel: String
    public var installMarker: String
    public var records: [RegistrationRecord]
    public var serverRows: [ServerDevice]
}

/// One step of a reconcile.
public enum PlannedAction: Sendable, Equatable {
    /// `device add` with the current token and label.
    case add
    /// Record a row of ours that has no record (a crash between add and record).
    case adopt(id: Int)
    /// `device remove` of a row this device made.
    case remove(id: Int, reason: RemovalReason)
    /// Drop a record whose row is gone or no longer ours; no request.
    case forget(id: Int, reason: ForgetReason)

    public enum RemovalReason: String, Sendable {
        case oldToken = "old token"
        case released = "not wanted"
    }

    public enum ForgetReason: String, Sendable {
        case gone = "gone from the server"
        case reused = "id now holds another device's token"
        case handedOver = "held by another account of the instance"
    }
}

/// The diff: a pure function from what is recorded, what the server lists and what is wanted
/// to the actions that make the server right. Adds come before removes, so a rotation never
/// leaves the account without a row.
public enum ReconcilePlan {
    public static func actions(for input: PlanInput) -> [PlannedAction] {
        var actions: [PlannedAction] = []
        let current = input.currentToken
        let ownership = RowOwnership(
            currentToken: current.map { ($0.prefix, $0.length) }, oldPrefixes: input.oldPrefixes,
            installMarker: input.installMarker, records: input.records, rows: input.serverRows
        )
        var recordedIDs = Set<Int>()

        // Records first: a row that vanished, or whose id now shows another token, is no
        // longer ours and is never removed.
        for record in input.records {
            switch ownership.state(of: record) {
            case .gone: actions.append(.forget(id: record.deviceID, reason: .gone))
            case .reused: actions.append(.forget(id: record.deviceID, reason: .reused))
            case .present: recordedIDs.insert(record.deviceID)
            }
        }

        var currentRows: [ServerDevice] = []
        var oldRows: [ServerDevice] = []
        for row in input.serverRows {
            switch ownership.kind(of: row) {
            case .current: currentRows.append(row)
            case .oldToken: oldRows.append(row)
            case .notOurs: continue
            }
        }

        switch input.desire {
        case .hold:
            if let row = currentRows.first(where: { $0.label == input.serverLabel }) {
                let record = input.records.first { $0.deviceID == row.id }
                if record == nil || record?.generation != current?.generation {
                    actions.append(.adopt(id: row.id))
                }
            } else if current != nil {
                actions.append(.add)
            }
        case .shadowed:
            for row in currentRows where recordedIDs.contains(row.id) {
                actions.append(.forget(id: row.id, reason: .handedOver))
            }
        case .release:
            for row in currentRows {
                actions.append(.remove(id: row.id, reason: .released))
            }
        }
        for row in oldRows {
            actions.append(.remove(id: row.id, reason: input.desire == .release ? .released : .oldToken))
        }
        return actions
    }
}
