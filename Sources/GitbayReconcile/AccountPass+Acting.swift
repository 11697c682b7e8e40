import GitbayAPI
import GitbayState
import GitbaySupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension AccountPass {
    /// The next operation's first step, or what follows when none is left.
    mutating func nextOperation() -> Step {
        guard case .acting(_, var pending, let then) = phase else { preconditionFailure("not acting: \(phase)") }
        guard !pending.isEmpty else {
            switch then {
            case .verdict:
                return afterActions()
            case .confirmed(let tag):
                remember(tag, basis: decision.tagBasis(records: records))
                return succeeded()
            }
        }
        let operation = pending.removeFirst()
        phase = .acting(current: operation, pending: pending, then: then)
        switch operation {
        case .forget(let id, let reason):
            return .forget(deviceID: id, reason: reason)
        case .adopt(let id):
            guard let record = record(id, added: work.listedRows[id]?.added) else { return nextOperation() }
            return .record(record)
        case .add, .remove:
            // Before each write: a change made meanwhile (a new token, a pause, another holder)
            // ends the pass rather than being undone.
            return .checkStillWanted(snapshot)
        case .recordAdded(let id, let added, _):
            guard let record = record(id, added: added) else { return nextOperation() }
            return .record(record)
        }
    }

    /// The step after `event` answered the operation in flight.
    mutating func acted(_ event: Event) -> Step {
        guard case .acting(let current?, var pending, let then) = phase else { preconditionFailure("no operation in flight: \(phase)") }
        let continuing = { (operation: Operation) in Phase.acting(current: operation, pending: pending, then: then) }
        switch (current, event) {
        case (.forget(let id, _), .stored), (.remove(let id, _, true, true), .stored):
            records.removeAll { $0.deviceID == id }
            if work.heldID == id { work.heldID = nil }
            return nextOperation()
        case (.adopt(let id), .stored):
            keepRecord(id, added: work.listedRows[id]?.added)
            work.heldID = id
            return nextOperation()
        case (.add(let settling, false, let again), .stillWanted(true)):
            phase = continuing(.add(settling: settling, checked: true, again: again))
            addSentAt = now
            return .add
        case (.remove(let id, let reason, false, _), .stillWanted(true)):
            phase = continuing(.remove(id: id, reason: reason, checked: true, sent: false))
            return .remove(id: id, reason: reason)
        case (.add, .stillWanted(false)), (.remove, .stillWanted(false)):
            return superseded()
        case (.add(let settling, true, let again), .added(let id)):
            writes += 1
            guard let id else {
                // v1.32.0 answers without the id: a fresh list shows which row holds the token.
                phase = .finding(again: again, pending: pending)
                return .list(ifNoneMatch: nil)
            }
            // The listed `added` is this row's only if the listed row can be showing our token.
            let added = work.listedRows[id].flatMap { decision.current?.canBeShown(as: $0.token) ?? false ? $0.added : nil }
            phase = continuing(.recordAdded(id: id, added: added, settling: settling))
            return record(id, added: added).map(Step.record) ?? nextOperation()
        case (.remove(let id, let reason, true, false), .removed):
            writes += 1
            phase = continuing(.remove(id: id, reason: reason, checked: true, sent: true))
            return .forget(deviceID: id, reason: .removed)
        case (.recordAdded(let id, let added, let settling), .stored):
            keepRecord(id, added: added)
            work.heldID = id
            // Of the rows that could not be told apart, the one the add answered holds the
            // current token; the others hold old ones.
            let settled = settling.filter { $0 != id }.map { Operation.remove(id: $0, reason: .unsettled, checked: false, sent: false) }
            pending.insert(contentsOf: settled, at: 0)
            phase = .acting(current: nil, pending: pending, then: then)
            return nextOperation()
        default:
            preconditionFailure("event \(event) does not fit operation \(current)")
        }
    }

    /// The list after an add answered without its id: the row held (`RowOwnership.heldRow`),
    /// or the only marked row of ours that may hold the current token. Where several may, none
    /// can be told apart: they are removed and the token added afresh, once.
    mutating func found(in rows: [ServerDevice], again: Bool, pending: [Operation]) -> Step {
        work.listedRows = Dictionary(rows.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        let ownership = decision.planInput(records: records, rows: rows).ownership
        let candidates =
            switch ownership.heldRow {
            case .row(let id): [id]
            case .undecided(let ids): ids
            }
        if candidates.count == 1, let row = work.listedRows[candidates[0]] {
            phase = .acting(current: .recordAdded(id: row.id, added: row.added, settling: []), pending: pending, then: .verdict)
            return record(row.id, added: row.added).map(Step.record) ?? nextOperation()
        }
        guard !again else {
            return failed(
                .server(
                    GitbayError(
                        kind: .malformed, account: account.name, command: ["notifications", "device", "list"],
                        serverMessage: "the row just added cannot be told apart in the device list")))
        }
        work.undecided = candidates.compactMap { work.listedRows[$0] }
        let removals = candidates.map { Operation.remove(id: $0, reason: .unsettled, checked: false, sent: false) }
        phase = .acting(current: nil, pending: removals + [.add(settling: [], checked: false, again: true)] + pending, then: .verdict)
        return nextOperation()
    }

    /// Keeps this pass's view of the records as the store now has them, once `id` is recorded.
    private mutating func keepRecord(_ id: Int, added: String?) {
        guard let record = record(id, added: added) else { return }
        records.removeAll { $0.deviceID == id }
        records.append(record)
        records.sort { $0.deviceID < $1.deviceID }
    }

    /// A record of row `id` holding the current token; nil without a current token.
    func record(_ id: Int, added: String?) -> RegistrationRecord? {
        guard let current = decision.current else { return nil }
        return RegistrationRecord(
            accountID: account.id, deviceID: id, added: added, token: current, generation: device.generation, madeAt: now)
    }
}
