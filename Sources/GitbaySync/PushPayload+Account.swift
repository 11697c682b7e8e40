import GitbayState
import PushResolve

extension PushPayload {
    /// The signed-in account the push is for: same instance and same user. An account being
    /// removed no longer counts as signed in.
    func account(among accounts: [AccountRecord]) -> AccountRecord? {
        accounts.first { $0.state != .removing && $0.instance == instance && $0.username == user }
    }
}
