import GitbayKeyring
import GitbaySupport

/// Where an app keeps its accounts' API tokens instead of the state database: its Keychain,
/// say. Entries are named `user@host` (or `user@host:port`), a space and the install's marker,
/// or, for a token a rotation minted, the account's name, a space and the token's name (an
/// earlier version used the account's name alone, and moves such an entry): keep each under
/// the name given. A store that cannot answer now
/// (locked, say) throws: the accounts whose tokens it holds wait, never signed out, and a
/// later `reconcile()` tries again.
public protocol APITokenStore: Sendable {
    /// Stores `token` as the token of `account`, replacing the one stored before.
    func store(_ token: String, for account: String) async throws
    /// Every token stored, by account, read at once.
    func readAll() async throws -> [String: String]
    /// Deletes the token of `account`; nothing to delete is no error.
    func delete(account: String) async throws
}

/// An app's token store, as the engine reads a keyring.
struct AppTokenKeyring: TokenKeyring {
    let tokens: any APITokenStore

    func store(_ secret: Secret, for account: String) async throws(KeyringUnavailable) {
        try await answer { try await tokens.store(secret.exposedValue, for: account) }
    }

    func readAll() async throws(KeyringUnavailable) -> [String: Secret] {
        try await answer { try await tokens.readAll().mapValues(Secret.init) }
    }

    @discardableResult
    func delete(account: String) async throws(KeyringUnavailable) -> KeyringDeletion {
        try await answer { try await tokens.delete(account: account) }
        return .deleted
    }

    /// What `body` answered; its failure, whatever it is, as a keyring that cannot answer now.
    private func answer<Value>(_ body: () async throws -> Value) async throws(KeyringUnavailable) -> Value {
        do {
            return try await body()
        } catch {
            throw .failed(detail: String(describing: error))
        }
    }
}
