// The app's side: an observable model a SwiftUI view reads, mirroring the engine's state.
import GitbaySyncKit
import Observation

/// What the app's settings screen shows: every account's state, kept current by the engine's
/// change stream.
@Observable
public final class PushModel {
    public private(set) var accounts: [GitbayAccountStatus] = []
    public private(set) var deviceTokenSet = false
    public let sync: GitbayPushSync

    public init(sync: GitbayPushSync) {
        self.sync = sync
    }

    /// Follows the engine's changes until the task is cancelled (a view's `.task { await model.follow() }`).
    public func follow() async throws {
        for await snapshot in try await sync.changes() {
            accounts = snapshot.accounts
            deviceTokenSet = snapshot.deviceTokenSet
        }
    }

    /// A background refresh: as much as fits in the time the system gives.
    public func refresh(within budget: Duration) async throws -> GitbayRun {
        try await sync.reconcile(budget: budget)
    }
}
