import GitbayAPI
import GitbayState
import GitbaySupport

/// What an account should have on its server, decided before looking at the server.
package enum Desire: Sendable, Equatable {
    /// Exactly one row with the current token.
    case hold
    /// Another account of the instance holds the token (the server gives it to one account):
    /// no rows of old tokens, and the current token's row is left for the holder to take.
    case shadowed(by: String)
    /// No row of ours at all (paused, being removed, or no device token).
    case release
}

/// Everything the diff looks at for one account.
package struct PlanInput: Sendable {
    package var desire: Desire
    /// The current token, or nil when none is set.
    package var current: TokenIdentity?
    /// The tokens this device held before.
    package var oldTokens: [TokenIdentity]
    /// The label the device's rows should carry, install marker included.
    package var serverLabel: String
    package var installMarker: String
    package var records: [RegistrationRecord]
    package var serverRows: [ServerDevice]

    var ownership: RowOwnership {
        RowOwnership(current: current, oldTokens: oldTokens, installMarker: installMarker, records: records, rows: serverRows)
    }
}

/// One step of a reconcile.
package enum PlannedAction: Sendable, Equatable {
    /// `device add` with the current token and label. Of the `settling` rows (ours, but which
    /// token they hold cannot be told from the list) the one the add answers with holds the
    /// current token; the others hold old tokens and are removed.
    case add(settling: [Int])
    /// Record a listed row as holding the current token, with its `added` time: a row of ours
    /// without a (complete) record.
    case adopt(id: Int)
    /// `device remove` of a row this device made.
    case remove(id: Int, reason: RemovalReason)
    /// Drop a record whose row is gone or is not the recorded row any more; no request.
    case forget(id: Int, reason: ForgetReason)

    /// A plain `device add`.
    package static let add = PlannedAction.add(settling: [])

    package enum RemovalReason: String, Sendable {
        case oldToken = "old token"
        case released = "not wanted"
        /// Ours, holding the current token or an old one; not wanted on a shadowed account either way.
        case unsettled = "not settled"
    }

    package enum ForgetReason: String, Sendable {
        case gone = "gone from the server"
        case replaced = "id now names another row"
        case handedOver = "held by another account of the instance"
        /// This install removed the row from the server.
        case removed = "removed from the server"
    }

    /// True for the steps that send a write to the server.
    var isWrite: Bool {
        switch self {
        case .add, .remove: true
        case .adopt, .forget: false
        }
    }
}

/// The diff: a pure function from what is recorded, what the server lists and what is wanted
/// to the actions that make the server right. Adds come before removes, so a rotation never
/// leaves the account without a row.
package enum ReconcilePlan {
    package static func actions(for input: PlanInput) -> [PlannedAction] {
        let ownership = input.ownership
        var actions: [PlannedAction] = []
        var kept: [Int: RegistrationRecord] = [:]
        for record in input.records {
            switch ownership.state(of: record) {
            case .gone: actions.append(.forget(id: record.deviceID, reason: .gone))
            case .replaced: actions.append(.forget(id: record.deviceID, reason: .replaced))
            case .present, .unconfirmed: kept[record.deviceID] = record
            }
        }
        var ours = OursByKind()
        for row in input.serverRows {
            switch ownership.kind(of: row) {
            case .current: ours.current.append(row)
            case .oldToken: ours.old.append(row)
            case .unsettled: ours.unsettled.append(row)
            case .notOurs:
                // A record the display cannot square with any token of ours.
                if kept[row.id] != nil { actions.append(.forget(id: row.id, reason: .replaced)) }
            }
        }
        switch input.desire {
        case .hold: actions += holding(ours, kept: kept, input: input, ownership: ownership)
        case .shadowed:
            for row in ours.current where kept[row.id] != nil {
                actions.append(.forget(id: row.id, reason: .handedOver))
            }
            actions += ours.unsettled.map { .remove(id: $0.id, reason: .unsettled) }
            actions += ours.old.map { .remove(id: $0.id, reason: .oldToken) }
        case .release:
            actions += (ours.current + ours.unsettled + ours.old).sorted { $0.id < $1.id }.map { .remove(id: $0.id, reason: .released) }
        }
        return actions
    }

    /// The listed rows of ours, by what they hold.
    private struct OursByKind {
        var current: [ServerDevice] = []
        var old: [ServerDevice] = []
        var unsettled: [ServerDevice] = []
    }

    /// The steps that leave the account holding exactly one row, of the current token.
    private static func holding(
        _ ours: OursByKind, kept: [Int: RegistrationRecord], input: PlanInput, ownership: RowOwnership
    ) -> [PlannedAction] {
        var actions: [PlannedAction] = []
        if let row = ours.current.first {
            let complete = kept[row.id].map { ownership.state(of: $0) == .present } ?? false
            if row.label != input.serverLabel {
                // Re-adding rewrites the label and answers with this row's id.
                actions.append(.add)
            } else if !complete || !ownership.isProvenByRecord(row) {
                actions.append(.adopt(id: row.id))
            }
        } else if input.current != nil {
            actions.append(.add(settling: ours.unsettled.map(\.id)))
        }
        return actions + ours.old.map { .remove(id: $0.id, reason: .oldToken) }
    }
}
