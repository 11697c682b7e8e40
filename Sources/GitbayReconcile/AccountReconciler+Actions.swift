import FoundationEssentials
import GitbayAPI
import GitbayState
import GitbaySupport

extension AccountReconciler {
    /// Performs the plan in order, recording each step as soon as it is done. Returns the row
    /// holding the current token that the account holds afterwards.
    func carryOut(_ plan: AccountDecision.Plan, rows: [ServerDevice], writes: inout Int) async throws -> Int? {
        let listed = Dictionary(rows.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        // In the steady state the plan is empty and the row held is the one it starts from.
        var heldID = plan.heldID
        for action in plan.actions {
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
    ///
    /// The adds of a run take turns (`AddTurns`), and each looks, around itself, for the proof
    /// that its URL and another name one server (`SameServerCheck`).
    private func addCurrentToken(settling: [Int], listed: [Int: ServerDevice], writes: inout Int) async throws -> Int {
        await sameServer.turns.begin()
        do {
            try await ensureStillWanted()
            let id = try await addInTurn(settling: settling, listed: listed, writes: &writes)
            await sameServer.turns.end()
            return id
        } catch {
            await sameServer.turns.end()
            throw error
        }
    }

    private func addInTurn(settling: [Int], listed: [Int: ServerDevice], writes: inout Int) async throws -> Int {
        guard let token = device.token, let current = decision.current else {
            preconditionFailure("the plan adds only when a device token is set")
        }
        let witnesses = await sameServer.witnesses(for: account, token: current)
        defer { sideWitnesses += witnesses }
        let answer: DeviceAddResult
        do {
            answer = try await client.addDevice(token: token, label: device.serverLabel)
        } catch {
            // The add may have gone through unanswered, and moved a witness's row if its
            // server is this one: its `registered` no longer holds until its own pass says so.
            await forgetVerdicts(of: witnesses)
            throw error
        }
        writes += 1
        // Any witness may have lost its row to an add answered without the id; with the id,
        // only one that listed it, which the check after the add settles.
        if answer.id == nil { await forgetVerdicts(of: witnesses) }
        if let id = answer.id {
            // The listed `added` is this row's only if the listed row can be showing our token.
            let added = listed[id].flatMap { current.canBeShown(as: $0.token) ? $0.added : nil }
            try await record(id, added: added)
            for other in settling where other != id {
                try await remove(other, reason: .unsettled, writes: &writes)
            }
            try await proveIfMoved(id, witnesses: witnesses)
            return id
        }
        // v1.32.0 answers without the id: the row is the one a fresh list shows this device
        // holding. Where several may be, nothing tells them apart: remove them all and add afresh.
        switch try await findAddedRow() {
        case .found(let id):
            try await proveIfMoved(id, witnesses: witnesses)
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

    /// Forgets the verdicts of `witnesses` (`StateStore.forgetVerdict`), as far as the store lets.
    private func forgetVerdicts(of witnesses: [SameServerCheck.Witness]) async {
        for witness in witnesses { try? await store.forgetVerdict(ofAccount: witness.account.id) }
    }

    /// When a witness listed the row `id` just before the add, reads this account's list and
    /// the witness's again: the proof of one server, if the row moved (`SameServerCheck`).
    private func proveIfMoved(_ id: Int, witnesses: [SameServerCheck.Witness]) async throws {
        let candidates = witnesses.filter { $0.rows.contains { $0.id == id } }
        guard !candidates.isEmpty else { return }
        let answer: DeviceList
        do {
            answer = try await client.listDevices(ifNoneMatch: nil)
        } catch {
            // Unsettled: a candidate may have lost its row to the add.
            await forgetVerdicts(of: candidates)
            throw error
        }
        guard case .list(let rows, _) = answer else { return }
        guard await sameServer.prove(account, added: id, listed: rows, witnesses: candidates) != nil else { return }
        // The list completes this account's record of the row it now holds.
        if let row = rows.first(where: { $0.id == id }) { try await record(id, added: row.added) }
    }

    private enum AddedRow {
        case found(Int)
        case ambiguous([Int])
    }

    /// Finds (and records) the row an add without an id made: the row held (`RowOwnership.heldRow`),
    /// or the only marked row of ours that may hold the current token.
    private func findAddedRow() async throws -> AddedRow {
        guard case .list(let rows, _) = try await client.listDevices(ifNoneMatch: nil) else { return .ambiguous([]) }
        let ownership = decision.planInput(records: try await store.registrations(ofAccount: account.id), rows: rows).ownership
        let candidates =
            switch ownership.heldRow {
            case .row(let id): [id]
            case .undecided(let ids): ids
            }
        guard candidates.count == 1, let row = rows.first(where: { $0.id == candidates[0] }) else { return .ambiguous(candidates) }
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
        guard let current = decision.current else { return }
        try await store.recordRegistration(
            RegistrationRecord(
                accountID: account.id, deviceID: id, added: added, token: current, generation: device.generation, madeAt: now()
            ))
    }
}
