import GitbayState
import Synchronization

/// The proofs of one server under two names that a run's passes made, for the run to plan
/// the accounts of that server again, towards the one holder they now share.
final class ProvenNames: Sendable {
    private let proofs = Mutex<[SameServerRecord]>([])

    /// Notes a proof made in this run.
    func note(_ proof: SameServerRecord) {
        proofs.withLock { $0.append(proof) }
    }

    /// The proofs made since the last call.
    func take() -> [SameServerRecord] {
        proofs.withLock { proofs in
            defer { proofs = [] }
            return proofs
        }
    }
}
