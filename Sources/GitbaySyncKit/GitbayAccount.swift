import GitbayReconcile
import GitbayState
import GitbaySupport
import Synchronization

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A signed-in account, as the engine keeps it.
public struct GitbayAccount: Sendable, Hashable, Identifiable {
    /// Its id in the state database: what results are keyed by.
    public let id: Int64
    /// `user@host[:port]`: unique on this device.
    public let name: String
    /// The server's URL, e.g. `https://gitbay.org`.
    public let instance: String
    public let username: String
    public let state: GitbayAccountState

    /// The name the account signed in on `instance` as `username` has (`user@host[:port]`,
    /// the host lower-cased, the default port left out): a key an app can file its own token
    /// under before signing in. Nil when `instance` is not a server URL the engine accepts.
    public static func name(instance: String, username: String) -> String? {
        (try? InstanceURL(parsing: instance)).map { AccountRecord.name(username: username, instance: $0) }
    }

    init(_ record: AccountRecord) {
        id = record.id
        name = record.name
        instance = record.instance.description
        username = record.username
        state = GitbayAccountState(record.state)
    }
}

/// A sign-in: the account stored, and its server's accounts reconciled when a device token is
/// set (empty otherwise).
public struct GitbaySignIn: Sendable, Equatable {
    public let account: GitbayAccount
    /// What reconciling its server did, account by account.
    public let results: [GitbayAccountResult]
    /// False when no device token is set yet: nothing was registered.
    public let deviceTokenSet: Bool
}

/// A sign-out: how it ended, the account's own result, and the other accounts of its server
/// reconciled once the device was deregistered (one may take the device token over).
public struct GitbaySignOut: Sendable, Equatable {
    public let removal: GitbayRemoval
    public let result: GitbayAccountResult
    public let handedOver: [GitbayAccountResult]
}

/// Why a sign-in stored nothing.
public enum GitbaySignInError: Error, Sendable, Equatable {
    /// The instance URL cannot be used (not https, plain http to a host other than loopback,
    /// or malformed).
    case badInstance(String)
    /// The server refused the API token (invalid, expired or revoked).
    case tokenRefused
    /// The token may only read; registering a device needs a full-scope token.
    case readOnlyToken
    /// The address does not answer as a gitbay API.
    case notGitbay
    /// The server named a user that cannot name an account.
    case unusableUsername(String)
    /// The same account is signed in already, under another name of the same server.
    case alreadySignedIn(as: GitbayAccount)
    /// The token store the app gave did not take the token.
    case tokenStoreUnavailable(GitbayTokenStoreFailure)
    /// Another process (`pid`) is reconciling the account or renewing its token; nothing was
    /// stored. Try again once it is done.
    case busy(pid: Int32)
    /// The server or the connection failed.
    case failed(GitbayFailure)

    init(_ failure: SyncEngine.SignInFailure) {
        switch failure {
        case .tokenRefused: self = .tokenRefused
        case .readOnlyToken: self = .readOnlyToken
        case .notGitbay: self = .notGitbay
        case .unusableUsername(let name): self = .unusableUsername(name)
        case .alreadySignedIn(let twin): self = .alreadySignedIn(as: GitbayAccount(twin))
        case .keyringUnavailable(let reason): self = .tokenStoreUnavailable(GitbayTokenStoreFailure(reason))
        case .busy(let pid): self = .busy(pid: pid)
        case .failed(let error): self = .failed(GitbayFailure(AccountFailure(error)))
        }
    }
}

/// The account is being signed out: it no longer counts as signed in, and cannot be paused,
/// resumed or preferred.
public struct GitbayAccountBeingSignedOut: Error, Sendable, Equatable {
    public let account: GitbayAccount
}

/// The account named is not signed in (signed out meanwhile, say).
public struct GitbayAccountNotFound: Error, Sendable, Equatable {
    public let id: Int64
    public let name: String
}

/// What an app does when an account is signed out, after this device is deregistered and
/// before the account's API token is deleted (clear its own Keychain item, say). Throwing
/// keeps the account `removing` with its token; the next sign-out or `reconcile()` retries.
public protocol GitbayRemovalStep: Sendable {
    func run(for account: GitbayAccount) async throws
}

/// The app's removal step as the core runs it; the app may set or change it at any time.
final class AppRemovalStep: PreRemovalStep {
    private let step: Mutex<(any GitbayRemovalStep)?>

    init(_ step: (any GitbayRemovalStep)?) { self.step = Mutex(step) }

    func set(_ step: (any GitbayRemovalStep)?) { self.step.withLock { $0 = step } }

    func run(for account: AccountRecord, shutdown: ShutdownSignal) async throws {
        guard let step = step.withLock({ $0 }) else { return }
        try await step.run(for: GitbayAccount(account))
    }
}
