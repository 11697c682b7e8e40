import GitbayState
import GitbaySupport

extension SyncEngine {
    /// Runs `body`, the change of the token of the account named `name`, holding the account's
    /// lease when it is signed in already (and not being removed: a sign-in during a removal
    /// ends the removal, which checks for it). A run renewing the token holds it too: without it,
    /// the run could delete the keyring item the sign-in has just written, taking it for its
    /// predecessor's. Another process's lease is waited for, at most `wait` (`waiting` is told
    /// once, with the holder's pid, when the wait starts); then `SignInFailure.busy`, and
    /// `body` never runs.
    func holdingLease<T>(
        of name: String, waitingAtMost wait: Duration, waiting: (@Sendable (Int32) -> Void)? = nil, _ body: () async throws -> T
    ) async throws -> T {
        // A removal holds its lease through the hook; a sign-in meanwhile wins over it as before.
        guard let account = try await store.account(named: name), account.state != .removing else { return try await body() }
        let holder = options.leaseHolder
        let deadline = ContinuousClock.now + wait
        var grant = try await store.takeLeases([account.id], holder: holder)
        if let lease = grant.heldElsewhere[account.id] { waiting?(lease.holderPID) }
        while let lease = grant.heldElsewhere[account.id] {
            guard ContinuousClock.now < deadline else { throw SignInFailure.busy(pid: lease.holderPID) }
            try await Task.sleep(for: .milliseconds(100))
            grant = try await store.takeLeases([account.id], holder: holder)
        }
        let release = { [store] in
            if grant.taken.contains(account.id) { try? await store.releaseLeases([account.id], holder: holder) }
        }
        do {
            let result = try await body()
            await release()
            return result
        } catch {
            await release()
            throw error
        }
    }
}
