import GitbayAPI
import GitbayReconcile
import GitbayState
import GitbaySupport
import GitbayURLSession

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// How an app's requests reach gitbay servers: URLSession (`URLSessionTransport`) or its own,
/// one request at a time, a redirect never followed, cancellation honoured.
public typealias HTTPTransport = GitbayAPI.HTTPTransport
/// A request a transport sends, and what it answers.
public typealias HTTPRequest = GitbayAPI.HTTPRequest
public typealias HTTPResponse = GitbayAPI.HTTPResponse
/// The limits a transport enforces per request, and how it fails.
public typealias TransportConfiguration = GitbayAPI.TransportConfiguration
public typealias TransportError = GitbayAPI.TransportError
/// The URLSession transport (Foundation on Apple platforms, FoundationNetworking on Linux).
public typealias URLSessionTransport = GitbayURLSession.URLSessionTransport

/// A signed-in account.
public struct Account: Sendable, Hashable {
    /// `user@host[:port]`: unique on this device.
    public let name: String
    /// The instance's URL, e.g. `https://gitbay.org`.
    public let instance: String
    public let username: String
    public let state: State

    /// What the user wants for the account.
    public enum State: String, Sendable {
        /// Signed in: this device is registered for it.
        case active
        /// Signed in without pushes: this device is not registered for it.
        case paused
        /// Being signed out: the removal waits for the server, and the next `reconcile()` retries it.
        case removing
    }

    init(_ record: AccountRecord) {
        name = record.name
        instance = record.instance.description
        username = record.username
        state = State(rawValue: record.state.rawValue) ?? .active
    }
}

/// What a reconcile did for one account, and where it stands.
public struct AccountReport: Sendable, Equatable {
    public let account: String
    /// What was done: `unchanged`, `added`, `re-added`, `rotated`, `adopted`, `removed`,
    /// `shadowed`, `skipped` or `failed`.
    public let action: String
    /// Where it stands: `registered`, `shadowed` (another account of the server holds the
    /// token), `paused`, `removing`, `no-device-token`, `auth-failed`, `denied`,
    /// `push-disabled`, `error` or `pending`.
    public let condition: String
    /// The server's row that holds this device's token for the account, when there is one.
    public let deviceID: Int?
    /// Why it failed, for a failed account.
    public let error: String?
    /// Until when the account waits out a failure (the server's `Retry-After`, or a backoff);
    /// `reconcile()` tries it anyway, an agent's timer run waits.
    public let nextRetryAt: Date?

    /// Whether the account is left as it should be.
    public var succeeded: Bool { action != "failed" }

    init(_ outcome: AccountOutcome) {
        account = outcome.account
        action = outcome.action.rawValue
        condition = outcome.condition.rawValue
        deviceID = outcome.deviceID
        error = outcome.failure?.description
        nextRetryAt = outcome.nextRetryAt
    }

    init(_ entry: SyncEngine.RunEntry) {
        self.init(entry.removal.map(\.outcome) ?? entry.outcome)
    }
}

/// Why a sign-in stored nothing.
public enum SignInError: Error, Sendable, Equatable {
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
    case alreadySignedIn(as: String)
    /// The token store the app gave did not take the token.
    case tokenStoreUnavailable(String)
    /// Another process (this pid) is reconciling the account or renewing its token; nothing
    /// was stored. Try again once it is done.
    case busy(pid: Int32)
    /// The server or the connection failed.
    case failed(String)

    init(_ failure: SyncEngine.SignInFailure) {
        switch failure {
        case .tokenRefused: self = .tokenRefused
        case .readOnlyToken: self = .readOnlyToken
        case .notGitbay: self = .notGitbay
        case .unusableUsername(let name): self = .unusableUsername(name)
        case .alreadySignedIn(let twin): self = .alreadySignedIn(as: twin.name)
        case .keyringUnavailable(let reason): self = .tokenStoreUnavailable(reason.description)
        case .busy(let pid): self = .busy(pid: pid)
        case .failed(let error): self = .failed(String(describing: error))
        }
    }
}

/// How a sign-out ended.
public enum SignOutResult: Sendable, Equatable {
    /// Deregistered, the removal step passed, the token revoked on the server when its name is
    /// known, the token and records deleted.
    case removed
    /// Deleted although the deregistration or the removal step failed; these rows are left on
    /// the server.
    case removedByForce(rowsLeft: [Int])
    /// Kept as `removing` with its token: the server, the removal step or the token's
    /// revocation failed. A later
    /// `reconcile()` tries again.
    case kept(reason: String)
    /// Another process (the agent, say) is reconciling the account and finishes the removal.
    case busy
    /// The account was signed in again while the removal ran: it stays signed in.
    case signedInAgain

    init(_ result: AccountRemoval.Result) {
        switch result {
        case .removed: self = .removed
        case .forced(_, let rows, _, _, _): self = .removedByForce(rowsLeft: rows)
        case .kept(_, let reason): self = .kept(reason: reason.detail)
        case .interrupted(_, let reason): self = .kept(reason: reason)
        case .busy: self = .busy
        case .signedInAgain: self = .signedInAgain
        }
    }
}

/// What an app does when an account is signed out, after this device is deregistered and
/// before the account's API token is deleted (clear its own Keychain item, say). Throwing
/// keeps the account `removing` with its token; the next sign-out or `reconcile()` retries.
public protocol RemovalStep: Sendable {
    func run(forAccount name: String) async throws
}

/// An app's removal step, as the core runs it.
struct AppRemovalStep: PreRemovalStep {
    let step: any RemovalStep

    init(_ step: any RemovalStep) { self.step = step }

    func run(for account: AccountRecord, shutdown: ShutdownSignal) async throws {
        try await step.run(forAccount: account.name)
    }
}
