import GitbayAPI
import GitbayState

extension AccountReconciler {
    /// After writes: the tag of a fresh list, with the basis it vouches for, when that list
    /// needs no more writes (records it completes, such as a new row's `added`, are written
    /// first), so the next run can be answered 304. Nil when the list fails or still differs.
    func confirmedTag() async -> (tag: String?, basis: String)? {
        do {
            guard case .list(let rows, let etag) = try await client.listDevices(ifNoneMatch: nil) else { return nil }
            let plan = decision.plan(records: try await store.registrations(ofAccount: account.id), answer: .list(rows, etag: etag))
            guard !plan.actions.contains(where: \.isWrite) else { return nil }
            var unused = 0
            _ = try await carryOut(plan, rows: rows, writes: &unused)
            return (etag, decision.tagBasis(records: try await store.registrations(ofAccount: account.id)))
        } catch {
            return nil
        }
    }
}
