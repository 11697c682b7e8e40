import GitbayState
import Synchronization

/// The accounts being signed out as a run began. The run's first round finishes each one's
/// removal as the account's next machine after its pass (`PassPool`), and keeps here how each
/// ended; a later round never reconciles one of them (its removal decided).
package final class RunRemovals: Sendable {
    package let removing: [Int64: AccountRecord]
    /// Carries the removals' steps out.
    let removal: AccountRemoval
    private let ended = Mutex([Int64: AccountRemoval.Result]())

    package init(removing: [Int64: AccountRecord], removal: AccountRemoval) {
        (self.removing, self.removal) = (removing, removal)
    }

    /// The account's removal ended as `result` (nil: left for a later run).
    func end(_ id: Int64, _ result: AccountRemoval.Result?) {
        guard let result else { return }
        ended.withLock { $0[id] = result }
    }

    /// How the account's removal ended in this run, once it has.
    package func result(of id: Int64) -> AccountRemoval.Result? {
        ended.withLock { $0[id] }
    }
}
