import GitbayAPI
import GitbayState

extension AccountRecord {
    /// Whether the account's stored user name is one gitbay never gives (`UserName`), stored
    /// by an earlier version from a server that is not gitbay, and the account is not being
    /// removed: nothing is sent for it until it is, and removing it is the fix.
    package var hasUnusableName: Bool {
        state != .removing && !UserName.isValid(username)
    }
}
