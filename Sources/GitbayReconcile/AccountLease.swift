import FoundationEssentials
import GitbayState

/// One pass's hold on an account's lease: none while it only reads, taken before its first
/// write (to the server or to the account's records) and given back when the pass ends. A
/// steady pass, which writes nothing, never takes it.
final class AccountLease {
    /// Thrown before a write when another live process holds the account's lease.
    struct HeldElsewhere: Error {
        let lease: LeaseRecord
    }

    private enum Hold {
        case none
        /// Taken by this pass, which gives it back.
        case taken
        /// Held by this holder already (an enclosing step gives it back).
        case enclosing
    }

    let store: StateStore
    let accountID: Int64
    let holder: LeaseHolder
    let now: @Sendable () -> Date
    private var hold = Hold.none

    init(store: StateStore, accountID: Int64, holder: LeaseHolder, now: @escaping @Sendable () -> Date) {
        self.store = store
        self.accountID = accountID
        self.holder = holder
        self.now = now
    }

    /// True once the pass needed the lease: it wrote, or was about to.
    private(set) var wasNeeded = false

    /// Holds the lease before a write, while the account's records are still `records` (what
    /// the pass planned from). Throws `AccountReconciler.Superseded` when they changed or the
    /// account is gone, `HeldElsewhere` when another live process holds it.
    func take(planningFrom records: [RegistrationRecord]) async throws {
        wasNeeded = true
        guard case .none = hold else { return }
        switch try await store.takeLease(ofAccount: accountID, holder: holder, ifRecords: records, now: now()) {
        case .taken: hold = .taken
        case .alreadyHeld: hold = .enclosing
        case .heldElsewhere(let lease): throw HeldElsewhere(lease: lease)
        case .recordsChanged, .gone: throw AccountReconciler.Superseded()
        }
    }

    /// Gives the lease back if this pass took it.
    func giveBack() async {
        if case .taken = hold { try? await store.releaseLeases([accountID], holder: holder) }
        hold = .none
    }
}
