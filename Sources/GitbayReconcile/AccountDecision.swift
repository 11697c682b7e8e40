import GitbayAPI
import GitbayState
import GitbaySupport

/// Everything a reconcile of one account decides, as functions of values: whether the list may
/// be asked with the remembered tag, what to do about the list the server gave, and the
/// verdict. `AccountReconciler` only carries these out.
package struct AccountDecision: Sendable {
    package var desire: Desire
    package var accountState: AccountState
    /// The device token generation and the label the rows should carry (install marker included).
    package var generation: Int
    package var serverLabel: String
    /// The current token, or nil when none is set.
    package var current: TokenIdentity?
    /// The tokens this device held before.
    package var oldTokens: [TokenIdentity]
    package var installMarker: String

    package init(
        desire: Desire, accountState: AccountState, generation: Int, serverLabel: String,
        current: TokenIdentity?, oldTokens: [TokenIdentity], installMarker: String
    ) {
        self.desire = desire
        self.accountState = accountState
        self.generation = generation
        self.serverLabel = serverLabel
        self.current = current
        self.oldTokens = oldTokens
        self.installMarker = installMarker
    }

    /// The decision for `account` on this `device`, towards `desire`.
    package init(desire: Desire, account: AccountRecord, device: DeviceRecord) {
        self.init(
            desire: desire, accountState: account.state, generation: device.generation, serverLabel: device.serverLabel,
            current: device.tokenIdentity, oldTokens: device.history.map(\.token),
            installMarker: device.installMarker
        )
    }

    /// What became of the remembered list tag once the actions are carried out.
    package enum TagRule: Sendable, Equatable {
        /// The server answered "not modified": the remembered tag and basis stand.
        case keepRemembered
        /// Nothing to do: remember the list's tag for the records as they are.
        case remember(tag: String?, basis: String)
        /// Only records change (forgotten or adopted): remember the list's tag for the records
        /// as they are afterwards.
        case rebase(tag: String?)
        /// Writes were sent: the list seen before them no longer describes the server; only a
        /// fresh list that needs no more writes may vouch.
        case confirmAfterWrites
        /// Writes were sent and no later run would send a tag (the server sends none, or the
        /// account is being removed): none is remembered, and no list confirms the writes.
        case forget
    }

    /// What to do about one answer to the list.
    package struct Plan: Sendable, Equatable {
        package var actions: [PlannedAction]
        /// The row held before any action (the listed row of the current token, or for a
        /// "not modified" answer the recorded one); the actions may change it.
        package var heldID: Int?
        package var tag: TagRule
    }

    /// The verdict on an account whose actions all went through.
    package struct Verdict: Sendable, Equatable {
        package var action: AccountOutcome.Action
        package var condition: AccountCondition
        package var shadowedBy: String?
        /// The status detail recorded with the condition.
        package var detail: String?
    }

    /// What a remembered list tag vouches for: a 304 is only "in sync" for the same token,
    /// label, account state, desire and local records.
    /// `generation|label|state|desire|id@added=fingerprint,...`, built as bytes and made a
    /// string once: every pass makes it, and appending to a string piece by piece costs
    /// several times more.
    package func tagBasis(records: [RegistrationRecord]) -> String {
        var basis: [UInt8] = []
        basis.reserveCapacity(64 + serverLabel.utf8.count + records.count * 64)
        basis.append(utf8Of: String(generation))
        basis.append(UInt8(ascii: "|"))
        basis.append(utf8Of: serverLabel)
        basis.append(UInt8(ascii: "|"))
        basis.append(utf8Of: accountState.rawValue)
        basis.append(UInt8(ascii: "|"))
        switch desire {
        case .hold: basis.append(utf8Of: "hold")
        case .shadowed(let holder):
            basis.append(utf8Of: "shadowed:")
            basis.append(utf8Of: holder)
        case .release: basis.append(utf8Of: "release")
        }
        basis.append(UInt8(ascii: "|"))
        for (index, record) in records.enumerated() {
            if index > 0 { basis.append(UInt8(ascii: ",")) }
            basis.append(utf8Of: String(record.deviceID))
            basis.append(UInt8(ascii: "@"))
            basis.append(utf8Of: record.added ?? "?")
            basis.append(UInt8(ascii: "="))
            basis.append(utf8Of: record.token.fingerprint.map { String($0.prefix(16)) } ?? "?")
        }
        return String(decoding: basis, as: UTF8.self)
    }

    /// The tag to ask the list with: the remembered one, only while it vouches for these records
    /// and this desire and the last attempt did not fail.
    package func tagToSend(remembered status: AccountStatusRecord, records: [RegistrationRecord]) -> String? {
        status.etagBasis == tagBasis(records: records) && status.failures == 0 ? status.listETag : nil
    }

    /// The plan for an answer to the list (a list, or "not modified").
    package func plan(records: [RegistrationRecord], answer: DeviceList) -> Plan {
        guard case .list(let rows, let etag) = answer else {
            // The tag vouches for these records: the one of the current token is the row held.
            let held = desire == .hold ? RowOwnership.heldRecord(in: records, current: current)?.deviceID : nil
            return Plan(actions: [], heldID: held, tag: .keepRemembered)
        }
        let input = planInput(records: records, rows: rows)
        let actions = ReconcilePlan.actions(for: input)
        let tag: TagRule =
            if actions.contains(where: \.isWrite) {
                etag == nil || accountState == .removing ? .forget : .confirmAfterWrites
            } else if actions.isEmpty {
                .remember(tag: etag, basis: tagBasis(records: records))
            } else {
                .rebase(tag: etag)
            }
        return Plan(actions: actions, heldID: desire == .hold ? input.ownership.heldRowID : nil, tag: tag)
    }

    /// The diff's input for these records and rows.
    package func planInput(records: [RegistrationRecord], rows: [ServerDevice]) -> PlanInput {
        PlanInput(
            desire: desire, current: current, oldTokens: oldTokens, serverLabel: serverLabel,
            installMarker: installMarker, records: records, serverRows: rows
        )
    }

    /// The verdict once `actions` went through and the account holds `heldID` (nil: no row
    /// of the current token). `hadRecords`: records existed before the run.
    package func verdict(actions: [PlannedAction], hadRecords: Bool, heldID: Int?) -> Verdict {
        var action = Self.action(for: actions, hadRecords: hadRecords)
        var shadowedBy: String?
        if case .shadowed(let holder) = desire {
            shadowedBy = holder
            if action == .unchanged { action = .shadowed }
        }
        return Verdict(
            action: action, condition: condition(holds: heldID != nil), shadowedBy: shadowedBy,
            detail: shadowedBy.map { "the device token is held by \($0) on this instance" }
        )
    }

    /// The condition recorded for the account.
    func condition(holds: Bool) -> AccountCondition {
        switch desire {
        case .hold: holds ? .registered : (current == nil ? .noDeviceToken : .error)
        case .shadowed: .shadowed
        case .release:
            switch accountState {
            case .paused: .paused
            case .removing: .removing
            case .active: .noDeviceToken
            }
        }
    }

    /// The word `run` reports for what the actions did.
    static func action(for plan: [PlannedAction], hadRecords: Bool) -> AccountOutcome.Action {
        let added = plan.contains { if case .add = $0 { true } else { false } }
        let removed = plan.contains { if case .remove = $0 { true } else { false } }
        let lost = hadRecords || plan.contains { if case .forget(_, let reason) = $0 { reason != .handedOver } else { false } }
        let oldTokens = plan.contains { if case .remove(_, .oldToken) = $0 { true } else { false } }
        switch (added, removed) {
        case (true, _) where oldTokens: return .rotated
        case (true, _): return lost ? .reAdded : .added
        case (false, true): return .removed
        default: return plan.contains { if case .adopt = $0 { true } else { false } } ? .adopted : .unchanged
        }
    }
}
