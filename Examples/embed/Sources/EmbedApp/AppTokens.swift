// The app's own tokens and sign-out step: in an app, its Keychain items and its session.
import Dispatch
import GitbaySyncKit
import Synchronization

/// The app's API tokens under its own keys (in memory here; Keychain items in an app): the
/// only copy. The engine reads them off the main actor, so the methods it calls are nonisolated.
public final class AppKeychain: GitbayTokenSource {
    private let tokens = Mutex<[String: String]>([:])

    public init() {}

    /// Files the token of the user on the server before signing in; false for a URL the engine refuses.
    public func save(_ token: String, instance: String, username: String) -> Bool {
        guard let name = GitbayAccount.name(instance: instance, username: username) else { return false }
        tokens.withLock { $0[name] = token }
        return true
    }

    public nonisolated func apiToken(for account: GitbayAccount) async throws -> String? {
        // A Keychain read blocks: it must never hold up the main thread.
        dispatchPrecondition(condition: .notOnQueue(.main))
        return tokens.withLock { $0[account.name] }
    }
    nonisolated func delete(_ account: GitbayAccount) { _ = tokens.withLock { $0.removeValue(forKey: account.name) } }
    public nonisolated var count: Int { tokens.withLock { $0.count } }
}

/// What the app clears when an account is signed out, once this device is deregistered: its
/// own token item.
public final class AppSignOutStep: GitbayRemovalStep {
    private let keychain: AppKeychain
    private let cleared = Mutex<[String]>([])

    public init(keychain: AppKeychain) { self.keychain = keychain }

    public nonisolated func run(for account: GitbayAccount) async throws {
        keychain.delete(account)
        cleared.withLock { $0.append(account.name) }
    }

    public nonisolated var clearedAccounts: [String] { cleared.withLock { $0 } }
}
