import FoundationEssentials

/// Reconciles one account through its own short-lived client: observe (the list), diff, act,
/// record each outcome as it happens.
struct AccountReconciler {
    let store: StateStore
    let account: AccountRecord
    let device: DeviceRecord
    let client: GitbayClient
    let logger: Logger
    let now: @Sendable () -> Date
    /// The longest wait before retrying a failed account (the timer's period, when there is one).
    let backoffCeiling: Duration

    /// The result, with the id of the row the account holds afterwards (for instance probing).
    struct Result {
        var outcome: AccountOutcome
        var heldID: Int?
    }

    func reconcile(_ desire: Desire) async -> Result {
        var status = (try? await store.status(ofAccount: account.id)) ?? AccountStatusRecord()
        let startedAt = now()
        status.lastAttemptAt = startedAt
        var writes = 0
        var outcome = AccountOutcome(account: account.name, action: .unchanged, condition: .pending)
        do {
            let records = try await store.registrations(ofAccount: account.id)
            let basis = etagBasis(for: desire, records: records)
            let settled = status.etagBasis == basis && status.failures == 0
            switch try await client.listDevices(ifNoneMatch: settled ? status.listETag : nil) {
            case .notModified:
                try await store.markVerified(accountID: account.id, deviceIDs: records.map(\.deviceID), at: startedAt)
                outcome.action = .unchanged
                outcome.deviceID = desire == .hold ? records.first { $0.generation == device.generation }?.deviceID : nil
            case .list(let rows, let etag):
                let plan = ReconcilePlan.actions(for: planInput(desire, records: records, rows: rows))
                outcome.deviceID = try await carryOut(plan, desire: desire, records: records, rows: rows, writes: &writes)
                outcome.action = Self.action(for: plan, hadRecords: !records.isEmpty)
                // The list seen before our own writes no longer describes the server: look
                // again, and remember that tag only if it shows the desired state.
                let settled: (tag: String?, basis: String)?
                if writes > 0 {
                    settled = await verifiedTag(desire)
                } else if plan.isEmpty {
                    settled = (etag, basis)
                } else {
                    // Forgotten or adopted records change what the tag vouches for.
                    settled = (etag, etagBasis(for: desire, records: try await store.registrations(ofAccount: account.id)))
                }
                status.listETag = settled?.tag
                status.etagBasis = settled?.tag == nil ? nil : settled?.basis
            }
            outcome.condition = condition(for: desire, holds: outcome.deviceID != nil)
            if case .shadowed(let holder) = desire {
                outcome.shadowedBy = holder
                if outcome.action == .unchanged { outcome.action = .shadowed }
            }
            status.condition = outcome.condition
            status.detail = outcome.shadowedBy.map { "the device token is held by \($0) on this instance" }
            status.lastSuccessAt = startedAt
            status.lastError = nil
            status.nextRetryAt = nil
            status.failures = 0
        } catch {
            status.failures += 1
            let (condition, wait) = FailurePolicy.classify(error, failures: status.failures, ceiling: backoffCeiling)
            status.condition = condition
            status.lastError = String(describing: error)
            status.nextRetryAt = wait.map { startedAt.addingTimeInterval(Double($0.components.seconds)) }
            status.listETag = nil
            status.etagBasis = nil
            outcome.action = .failed
            outcome.condition = condition
            outcome.error = String(describing: error)
            logger.warning("account.failed", ["account.name": account.name, "account.condition": condition.rawValue])
        }
        outcome.writes = writes
        outcome.requests = await client.requestCount
        do {
            try await store.saveStatus(status, ofAccount: account.id)
        } catch {
            outcome.action = .failed
            outcome.error = String(describing: error)
        }
        return Result(outcome: outcome, heldID: outcome.deviceID)
    }

    /// After writes: the tag of a fresh list, with the basis it vouches for, when that list
    /// needs nothing more, so the next run can be answered 304. Nil when the list fails or
    /// still differs.
    private func verifiedTag(_ desire: Desire) async -> (tag: String?, basis: String)? {
        guard case .list(let rows, let etag)? = try? await client.listDevices(ifNoneMatch: nil),
              let records = try? await store.registrations(ofAccount: account.id),
              ReconcilePlan.actions(for: planInput(desire, records: records, rows: rows)).isEmpty
        else { return nil }
        return (etag, etagBasis(for: desire, records: records))
    }

    /// What a remembered list tag vouches for: a 304 is only "in sync" for the same token,
    /// label, account state, role and local records.
    private func etagBasis(for desire: Desire, records: [RegistrationRecord]) -> String {
        let role = switch desire {
        case .hold: "hold"
        case .shadowed(let holder): "shadowed:\(holder)"
        case .release: "release"
        }
        let held = records.map { "\($0.deviceID):\($0.generation)" }.joined(separator: ",")
        return "\(device.generation)|\(device.serverLabel)|\(account.state.rawValue)|\(role)|\(held)"
    }

    private func planInput(_ desire: Desire, records: [RegistrationRecord], rows: [ServerDevice]) -> PlanInput {
        PlanInput(
            desire: desire,
            currentToken: device.token.map { ($0.prefix(), $0.exposedValue.utf8.count, device.generation) },
            oldPrefixes: device.history.map(\.prefix), serverLabel: device.serverLabel,
            installMarker: device.installMarker, records: records, serverRows: rows
        )
    }

    private func condition(for desire: Desire, holds: Bool) -> AccountCondition {
        switch desire {
        case .hold: holds ? .registered : (device.token == nil ? .noDeviceToken : .error)
        case .shadowed: .shadowed
        case .release:
            switch account.state {
            case .paused: .paused
            case .removing: .removing
            case .active: .noDeviceToken
            }
        }
    }

    /// Performs the plan in order, recording each step as soon as it is done.
    private func carryOut(_ plan: [PlannedAction], desire: Desire, records: [RegistrationRecord], rows: [ServerDevice], writes: inout Int) async throws -> Int? {
        // In the steady state the plan is empty and the row held is the recorded one.
        var heldID = desire != .hold ? nil : records.first { record in
            record.generation == device.generation && rows.contains { $0.id == record.deviceID }
        }?.deviceID
        for action in plan {
            switch action {
            case .forget(let id, let reason):
                logger.info("registration.forget", ["account.name": account.name, "device.id": String(id), "reason": reason.rawValue])
                try await store.forgetRegistration(accountID: account.id, deviceID: id)
                if heldID == id { heldID = nil }
            case .adopt(let id):
                try await record(id)
                heldID = id
            case .add:
                guard let token = device.token else { continue }
                let result = try await client.addDevice(token: token, label: device.serverLabel)
                writes += 1
                let id = try await resolveAddedID(result.id, token: token)
                try await record(id)
                heldID = id
            case .remove(let id, let reason):
                logger.info("registration.remove", ["account.name": account.name, "device.id": String(id), "reason": reason.rawValue])
                _ = try await client.removeDevice(id: id)
                writes += 1
                try await store.forgetRegistration(accountID: account.id, deviceID: id)
                if heldID == id { heldID = nil }
            }
        }
        return heldID
    }

    /// The id of the row `device add` made: from its answer, or (v1.32.0 servers answer none)
    /// from a fresh list, by the token's prefix and this install's label.
    private func resolveAddedID(_ answered: Int?, token: Secret) async throws -> Int {
        if let answered { return answered }
        guard case .list(let rows, _) = try await client.listDevices(ifNoneMatch: nil),
              let row = rows.last(where: { TokenMatch.matches(shown: $0.token, prefix: token.prefix()) && $0.label == device.serverLabel })
        else {
            throw GitbayError(
                kind: .malformed, account: account.name, command: ["notifications", "device", "list"],
                serverMessage: "the row just added is not in the device list"
            )
        }
        return row.id
    }

    private func record(_ id: Int) async throws {
        guard let token = device.token else { return }
        let at = now()
        try await store.recordRegistration(RegistrationRecord(
            accountID: account.id, deviceID: id, generation: device.generation, tokenPrefix: token.prefix(), madeAt: at, verifiedAt: at
        ))
    }

    /// The word `run` reports for what the plan did.
    static func action(for plan: [PlannedAction], hadRecords: Bool) -> AccountOutcome.Action {
        let added = plan.contains(.add)
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
