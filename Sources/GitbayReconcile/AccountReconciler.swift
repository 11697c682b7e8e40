import FoundationEssentials
import GitbayAPI
import GitbayState
import GitbaySupport

/// Reconciles one account through its own short-lived client: observe (the list), diff, act,
/// record each outcome as it happens.
struct AccountReconciler {
    let store: StateStore
    let account: AccountRecord
    let device: DeviceRecord
    /// The identity of the device's current token, worked out once per run.
    let current: TokenIdentity?
    let client: GitbayClient
    let logger: Logger
    let now: @Sendable () -> Date
    /// The longest wait before retrying a failed account (the timer's period, when there is one).
    let backoffCeiling: Duration
    /// What the plan is made for. Before each write and before the verdict is recorded the
    /// store is asked again: a change made meanwhile (a new token, a pause, another holder)
    /// ends this pass, so that the run plans again instead of undoing it.
    let snapshot: DesireSnapshot

    /// How one pass over the account ended.
    enum Pass {
        case done(AccountOutcome)
        /// The desire changed during the pass; nothing more was written for it.
        case superseded(requests: Int, writes: Int)
    }

    /// Thrown before a write once the desire has changed.
    private struct Superseded: Error {}

    /// Brings the account to `desire`; the outcome names the row of the current token it holds afterwards.
    func reconcile(_ desire: Desire) async -> Pass {
        var status = (try? await store.status(ofAccount: account.id)) ?? AccountStatusRecord()
        let startedAt = now()
        status.lastAttemptAt = startedAt
        var writes = 0
        var outcome = AccountOutcome(account: account.name, action: .unchanged, condition: .pending)
        do {
            let records = try await store.registrations(ofAccount: account.id)
            let basis = etagBasis(for: desire, records: records)
            let vouched = status.etagBasis == basis && status.failures == 0
            switch try await client.listDevices(ifNoneMatch: vouched ? status.listETag : nil) {
            case .notModified:
                // The tag vouches for these records: the one of the current token is the row held.
                outcome.action = .unchanged
                outcome.deviceID = desire == .hold ? records.first { current.map($0.token.isSameToken) ?? false }?.deviceID : nil
            case .list(let rows, let etag):
                let input = planInput(desire, records: records, rows: rows)
                let plan = ReconcilePlan.actions(for: input)
                outcome.deviceID = try await carryOut(plan, input: input, writes: &writes)
                outcome.action = Self.action(for: plan, hadRecords: !records.isEmpty)
                // The list seen before our own writes no longer describes the server: look
                // again, and remember that tag only if it shows the desired state.
                let confirmed: (tag: String?, basis: String)?
                if writes > 0 {
                    confirmed = await confirmedTag(desire)
                } else if plan.isEmpty {
                    confirmed = (etag, basis)
                } else {
                    // Forgotten or adopted records change what the tag vouches for.
                    confirmed = (etag, etagBasis(for: desire, records: try await store.registrations(ofAccount: account.id)))
                }
                status.listETag = confirmed?.tag
                status.etagBasis = confirmed?.tag == nil ? nil : confirmed?.basis
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
            status.nextRetryReason = nil
            status.failures = 0
        } catch {
            if error is Superseded { return .superseded(requests: await client.requestCount, writes: writes) }
            outcome.action = .failed
            outcome.error = String(describing: error)
            outcome.writes = writes
            outcome.requests = await client.requestCount
            if Self.isCancellation(error) {
                // Stopped on purpose: not the account's failure, and nothing more is recorded.
                outcome.condition = status.condition
                return .done(outcome)
            }
            status.failures += 1
            let (condition, wait) = FailurePolicy.classify(error, failures: status.failures, ceiling: backoffCeiling)
            status.condition = condition
            status.lastError = String(describing: error)
            status.nextRetryAt = wait.map { startedAt.addingTimeInterval(Double($0.components.seconds)) }
            status.nextRetryReason = wait == nil ? nil : FailurePolicy.retryReason(error)
            outcome.nextRetryAt = status.nextRetryAt
            outcome.nextRetryReason = status.nextRetryReason
            status.listETag = nil
            status.etagBasis = nil
            outcome.condition = condition
            logger.warning("account.failed", ["account.name": account.name, "account.condition": condition.rawValue])
        }
        outcome.writes = writes
        outcome.requests = await client.requestCount
        do {
            guard try await store.saveStatus(status, ofAccount: account.id, ifStill: snapshot) else {
                return .superseded(requests: outcome.requests, writes: writes)
            }
        } catch {
            outcome.action = .failed
            outcome.error = String(describing: error)
        }
        return .done(outcome)
    }

    /// Ends the pass when what the account should have is no longer what it was planned for.
    private func ensureStillWanted() async throws {
        guard try await store.desireSnapshot(ofAccount: account.id) == snapshot else { throw Superseded() }
    }

    static func isCancellation(_ error: Error) -> Bool {
        if error is CancellationError { return true }
        if let error = error as? GitbayError, case .transport(.cancelled) = error.kind { return true }
        return false
    }

    /// After writes: the tag of a fresh list, with the basis it vouches for, when that list
    /// needs no more writes (records it completes, such as a new row's `added`, are written
    /// first), so the next run can be answered 304. Nil when the list fails or still differs.
    private func confirmedTag(_ desire: Desire) async -> (tag: String?, basis: String)? {
        do {
            guard case .list(let rows, let etag) = try await client.listDevices(ifNoneMatch: nil) else { return nil }
            let input = planInput(desire, records: try await store.registrations(ofAccount: account.id), rows: rows)
            let plan = ReconcilePlan.actions(for: input)
            guard !plan.contains(where: \.isWrite) else { return nil }
            var unused = 0
            _ = try await carryOut(plan, input: input, writes: &unused)
            return (etag, etagBasis(for: desire, records: try await store.registrations(ofAccount: account.id)))
        } catch {
            return nil
        }
    }

    /// What a remembered list tag vouches for: a 304 is only "in sync" for the same token,
    /// label, account state, role and local records.
    private func etagBasis(for desire: Desire, records: [RegistrationRecord]) -> String {
        let role = switch desire {
        case .hold: "hold"
        case .shadowed(let holder): "shadowed:\(holder)"
        case .release: "release"
        }
        let held = records.map { "\($0.deviceID)@\($0.added ?? "?")=\($0.token.fingerprint.map { String($0.prefix(16)) } ?? "?")" }
        return "\(device.generation)|\(device.serverLabel)|\(account.state.rawValue)|\(role)|\(held.joined(separator: ","))"
    }

    private func planInput(_ desire: Desire, records: [RegistrationRecord], rows: [ServerDevice]) -> PlanInput {
        PlanInput(
            desire: desire, current: current, oldTokens: device.history.map(\.token), serverLabel: device.serverLabel,
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

    /// Performs the plan in order, recording each step as soon as it is done. Returns the row
    /// holding the current token that the account holds afterwards.
    private func carryOut(_ plan: [PlannedAction], input: PlanInput, writes: inout Int) async throws -> Int? {
        let listed = Dictionary(input.serverRows.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        let ownership = input.ownership
        // In the steady state the plan is empty and the row held is the one listed as current.
        var heldID = input.desire == .hold ? input.serverRows.first { ownership.kind(of: $0) == .current }?.id : nil
        for action in plan {
            switch action {
            case .forget(let id, let reason):
                logger.info("registration.forget", ["account.name": account.name, "device.id": String(id), "reason": reason.rawValue])
                try await store.forgetRegistration(accountID: account.id, deviceID: id)
                if heldID == id { heldID = nil }
            case .adopt(let id):
                try await record(id, added: listed[id]?.added)
                heldID = id
            case .add(let settling):
                heldID = try await addCurrentToken(settling: settling, listed: listed, writes: &writes)
            case .remove(let id, let reason):
                try await remove(id, reason: reason, writes: &writes)
                if heldID == id { heldID = nil }
            }
        }
        return heldID
    }

    /// `device add` of the current token; returns the id of the row that holds it. Of the
    /// `settling` rows, the one the server answers with is recorded and the others removed.
    private func addCurrentToken(settling: [Int], listed: [Int: ServerDevice], writes: inout Int) async throws -> Int {
        guard let token = device.token, let current else {
            preconditionFailure("the plan adds only when a device token is set")
        }
        try await ensureStillWanted()
        let answer = try await client.addDevice(token: token, label: device.serverLabel)
        writes += 1
        if let id = answer.id {
            // The listed `added` is this row's only if the listed row can be showing our token.
            let added = listed[id].flatMap { current.canBeShown(as: $0.token) ? $0.added : nil }
            try await record(id, added: added)
            for other in settling where other != id {
                try await remove(other, reason: .unsettled, writes: &writes)
            }
            return id
        }
        // v1.32.0 answers without the id: the row is the one of ours that a fresh list shows
        // with the current token. Where several fit, nothing tells them apart: remove them
        // all and add afresh.
        switch try await findAddedRow() {
        case .found(let id):
            return id
        case .ambiguous(let candidates):
            for candidate in candidates { try await remove(candidate, reason: .unsettled, writes: &writes) }
            try await ensureStillWanted()
            _ = try await client.addDevice(token: token, label: device.serverLabel)
            writes += 1
            if case .found(let id) = try await findAddedRow() { return id }
            throw GitbayError(
                kind: .malformed, account: account.name, command: ["notifications", "device", "list"],
                serverMessage: "the row just added cannot be told apart in the device list"
            )
        }
    }

    private enum AddedRow {
        case found(Int)
        case ambiguous([Int])
    }

    /// Finds (and records) the row an add without an id made: the only row of ours whose
    /// display fits the current token and that no record places on another token.
    private func findAddedRow() async throws -> AddedRow {
        guard case .list(let rows, _) = try await client.listDevices(ifNoneMatch: nil) else { return .ambiguous([]) }
        let ownership = planInput(.hold, records: try await store.registrations(ofAccount: account.id), rows: rows).ownership
        let candidates = rows.filter { row in
            let kind = ownership.kind(of: row)
            return kind == .current || (kind == .unsettled && ownership.hasMarker(row))
        }
        guard candidates.count == 1, let row = candidates.first else { return .ambiguous(candidates.map(\.id)) }
        try await record(row.id, added: row.added)
        return .found(row.id)
    }

    private func remove(_ id: Int, reason: PlannedAction.RemovalReason, writes: inout Int) async throws {
        try await ensureStillWanted()
        logger.info("registration.remove", ["account.name": account.name, "device.id": String(id), "reason": reason.rawValue])
        _ = try await client.removeDevice(id: id)
        writes += 1
        try await store.forgetRegistration(accountID: account.id, deviceID: id)
    }

    /// Records `id` as a row of this account holding the current token.
    private func record(_ id: Int, added: String?) async throws {
        guard let current else { return }
        try await store.recordRegistration(RegistrationRecord(
            accountID: account.id, deviceID: id, added: added, token: current, generation: device.generation, madeAt: now()
        ))
    }

    /// The word `run` reports for what the plan did.
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
