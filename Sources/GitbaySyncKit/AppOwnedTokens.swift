import GitbayKeyring
import GitbayState
import GitbaySupport
import Synchronization

/// Where an app keeps its accounts' API tokens itself (its own Keychain items, under its own
/// keys): the only copy. The engine reads a token when it needs one and never writes or
/// deletes one: the app stores the token before `signIn`, and deletes it in its removal step.
/// A token the app keeps is never rotated by the engine. A source that cannot answer now
/// (locked, say) throws: the accounts wait, reported not checked, and a later run tries again.
///
/// The engine calls it from its own executor, never the main actor: a type isolated to the
/// main actor conforms with `nonisolated` methods.
public protocol GitbayTokenSource: Sendable {
    /// The API token the app keeps for `account` (its server and user name), nil when none.
    func apiToken(for account: GitbayAccount) async throws -> String?
}

/// An app's token source, as the engine reads a keyring: each account's item answered with
/// the token the app keeps for the account; storing and deleting leave the app's copy alone.
final class AppOwnedTokens: TokenKeyring {
    let source: any GitbayTokenSource
    /// The open database, for the accounts the items belong to; nil while suspended.
    private let store = Mutex<StateStore?>(nil)

    init(_ source: any GitbayTokenSource) { self.source = source }

    func use(_ store: StateStore?) { self.store.withLock { $0 = store } }

    func store(_ secret: Secret, for account: String) async throws(KeyringUnavailable) {}

    func readAll() async throws(KeyringUnavailable) -> [String: Secret] {
        guard let store = store.withLock({ $0 }) else { throw .failed(detail: "the registrar is suspended") }
        do {
            let items = try await store.keyringItems()
            var tokens: [String: Secret] = [:]
            for account in try await store.accounts() {
                guard let item = items[account.id], let token = try await source.apiToken(for: GitbayAccount(account)) else { continue }
                tokens[item] = Secret(token)
            }
            return tokens
        } catch {
            throw .failed(detail: String(describing: error))
        }
    }

    @discardableResult
    func delete(account: String) async throws(KeyringUnavailable) -> KeyringDeletion { .deleted }
}
