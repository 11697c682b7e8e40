// The app's own token store and sign-out step: in an app, its Keychain items and its session.
import GitbaySyncKit
import Synchronization

/// The app's tokens, by the names the engine gives them (in memory here; the Keychain in an app).
public final class AppTokens: APITokenStore {
    private let tokens = Mutex<[String: String]>([:])

    public init() {}

    public nonisolated func store(_ token: String, for account: String) async throws { tokens.withLock { $0[account] = token } }
    public nonisolated func readAll() async throws -> [String: String] { tokens.withLock { $0 } }
    public nonisolated func delete(account: String) async throws { tokens.withLock { $0[account] = nil } }
    public nonisolated var count: Int { tokens.withLock { $0.count } }
}

/// What the app clears when an account is signed out, once this device is deregistered.
public final class AppSignOutStep: GitbayRemovalStep {
    private let cleared = Mutex<[String]>([])

    public init() {}

    public nonisolated func run(for account: GitbayAccount) async throws { cleared.withLock { $0.append(account.name) } }
    public nonisolated var clearedAccounts: [String] { cleared.withLock { $0 } }
}
