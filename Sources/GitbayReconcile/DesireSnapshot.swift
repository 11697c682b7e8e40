import GitbayState

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What a run wants for an account, and the device facts it planned with. A run compares it
/// before each write and before recording its verdict, so that a change made meanwhile (a new
/// token, a pause, another holder) is picked up instead of undone.
package struct DesireSnapshot: Sendable, Equatable {
    /// Nil when the account is not to be reconciled at all (its token was refused).
    package let desire: Desire?
    package let generation: Int
    package let label: String

    package init(desire: Desire?, generation: Int, label: String) {
        self.desire = desire
        self.generation = generation
        self.label = label
    }

    /// The account's desire as a run would decide it from `facts`.
    init(ofAccount id: Int64, _ facts: InstanceFacts) {
        self = Self.all(facts)[id] ?? DesireSnapshot(desire: nil, generation: facts.tokenGeneration, label: facts.label)
    }

    /// Every account's desire in `facts`, as a run would decide it, by account id.
    static func all(_ facts: InstanceFacts) -> [Int64: DesireSnapshot] {
        let entries = RunSchedule.entries(
            accounts: facts.accounts, statuses: facts.statuses, preferred: facts.preferred, names: facts.names,
            hasDeviceToken: facts.hasDeviceToken, honourBackoff: false, now: Date()
        )
        return Dictionary(
            entries.map { entry in
                let desire: Desire? = if case .reconcile(_, let desire) = entry { desire } else { nil }
                return (entry.account.id, DesireSnapshot(desire: desire, generation: facts.tokenGeneration, label: facts.label))
            }, uniquingKeysWith: { first, _ in first })
    }
}

extension StateStore {
    /// The account's desire as a run would decide it now; nil once the account is signed out.
    func desireSnapshot(ofAccount id: Int64) throws -> DesireSnapshot? {
        try instanceFacts(ofAccount: id).map { DesireSnapshot(ofAccount: id, $0) }
    }

    /// Saves a run's verdict only while the account's desire is still `snapshot`; false (and
    /// nothing written) when it changed meanwhile. Settles the doubts raised through `mark`.
    func saveStatus(
        _ status: AccountStatusRecord, ofAccount id: Int64, settlingDoubtsThrough mark: Int64, ifStill snapshot: DesireSnapshot
    ) throws -> Bool {
        try saveStatus(
            status, ofAccount: id, settlingDoubtsThrough: mark, if: { facts in facts.map { DesireSnapshot(ofAccount: id, $0) } == snapshot })
    }
}
