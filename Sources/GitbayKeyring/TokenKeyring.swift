import GitbaySupport

/// Where an account's API token is kept when the OS keyring answers: the freedesktop Secret
/// Service on Linux (`SecretServiceKeyring`), the login Keychain on macOS (`KeychainTokens`).
///
/// Items are this program's alone: service `gitbay-sync`, and an account attribute the caller
/// gives: the account's name and the install's marker (`user@host gbs-…`, so that two
/// databases signed in to one account never touch each other's item; an earlier version used
/// the account's name alone), or a rotated token's item's name of its own. Every call is bounded in time and fails
/// only with `KeyringUnavailable`, a value the caller can tell from "no item" (an empty
/// `readAll`, `KeyringDeletion.noItem`): a keyring that is locked, gone or slow is a reason
/// to wait, never a reason to think the token is gone. Secrets travel as `Secret` and appear
/// in no error.
package protocol TokenKeyring: Sendable {
    /// Stores `secret` as the token of `account`, replacing the one stored before.
    func store(_ secret: Secret, for account: String) async throws(KeyringUnavailable)

    /// Every token this program stored, by account, read in one query however many there are.
    func readAll() async throws(KeyringUnavailable) -> [String: Secret]

    /// Deletes the token of `account`.
    @discardableResult
    func delete(account: String) async throws(KeyringUnavailable) -> KeyringDeletion
}

/// What a deletion found.
package enum KeyringDeletion: Sendable, Equatable {
    /// The account's item was there and is gone.
    case deleted
    /// The keyring answered and holds no item for the account.
    case noItem
}
