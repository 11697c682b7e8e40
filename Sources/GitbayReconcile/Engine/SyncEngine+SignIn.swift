import GitbayAPI
import GitbayKeyring
import GitbayState
import GitbaySupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension SyncEngine {
    /// Why a sign-in stored nothing.
    package enum SignInFailure: Error, Sendable {
        /// The server refused the API token (invalid, expired or revoked).
        case tokenRefused
        /// The token may only read; registering a device needs a full-scope token.
        case readOnlyToken
        /// The address does not answer as a gitbay API.
        case notGitbay
        /// `whoami` named a user outside the form gitbay gives user names.
        case unusableUsername(String)
        /// The account is signed in already under another name of the same server.
        case alreadySignedIn(as: AccountRecord)
        /// The keyring was asked for (`--token-store keyring`) and did not answer.
        case keyringUnavailable(KeyringUnavailable)
        /// Another process (`pid`) held the account's lease for all of the wait: it is
        /// reconciling the account or renewing its token.
        case busy(pid: Int32)
        /// Anything else the server or the connection answered.
        case failed(any Error)
    }

    /// How long a sign-in waits for another process to give back the lease of an account
    /// signed in already.
    package static let signInLeaseWait: Duration = .seconds(30)

    /// A sign-in: the account stored, and its server's accounts reconciled when a device token
    /// is set (empty otherwise).
    package struct SignedIn: Sendable, Equatable {
        package let account: AccountRecord
        package let outcomes: [AccountOutcome]
        package let deviceTokenSet: Bool
        /// Where its API token is kept.
        package let kept: KeptToken
    }

    /// The user an API token signs in as, once `whoami` names a usable user and a write refused
    /// before it runs shows the token may write. Needs no store: a refused sign-in makes none.
    package static func verifiedUsername(_ client: GitbayClient) async throws(SignInFailure) -> String {
        let whoami: WhoAmI
        do {
            whoami = try await client.whoami()
        } catch {
            throw failure(error)
        }
        // The user name becomes the account's name, which is shown, typed and completed: only
        // the form a gitbay server gives is taken.
        guard isUsableUsername(whoami.username) else { throw .unusableUsername(whoami.username) }
        do {
            // `whoami` cannot tell a read-only token; a write refused before it runs can.
            try await client.checkWriteScope()
        } catch {
            throw failure(error)
        }
        return whoami.username
    }

    /// When the token named `name` expires, as the server's `token list` answers; nil when it
    /// never does, or when the list could not be had (a run learns it later).
    package static func serverExpiry(of name: String, _ client: GitbayClient) async -> Date? {
        expiry(of: name, in: await GitbayClient.awaiting { client.startListingTokens(completion: $0) })
    }

    /// The expiry `token list` gave for the token named `name`, cut to its whole second; nil
    /// when it gave none, or failed.
    static func expiry(of name: String, in listed: Result<[ServerToken], GitbayError>) -> Date? {
        guard let token = try? listed.get().first(where: { $0.name == name }) else { return nil }
        return wholeSecond(Timestamp.parse(token.expiresAt))
    }

    /// `expiry` cut to its whole second: never later than the server's, and an instant that
    /// reads back from the database as itself (a millisecond fraction may not).
    package static func wholeSecond(_ expiry: Date?) -> Date? {
        expiry.map { Date(timeIntervalSinceReferenceDate: $0.timeIntervalSinceReferenceDate.rounded(.down)) }
    }

    /// A user name that can name an account: one of the form gitbay gives user names.
    package static func isUsableUsername(_ username: String) -> Bool {
        UserName.isValid(username)
    }

    /// The account already signed in under another name of the server `instance` names: the
    /// same API token, or (once `username` is known) the same user on a server proven to be
    /// this one. The same name signing in again (a new token) is a sign-in like any other.
    /// Tokens in `keyring` are looked at when the database keeps any there.
    package static func signedInTwice(
        in store: StateStore?, keyring: (any TokenKeyring)? = nil, instance: InstanceURL, username: String?, apiToken: Secret
    ) async throws -> AccountRecord? {
        guard let store else { return nil }
        let name = username.map { AccountRecord.name(username: $0, instance: instance) }
        let tokens = APITokens(store: store, keyring: keyring)
        if let twin = try await tokens.account(holding: apiToken), twin.instance != instance { return twin }
        guard let username else { return nil }
        return try await store.accounts(onServerOf: instance).first { $0.username == username && $0.name != name }
    }

    /// Signs in with an API token checked by `verifiedUsername`: stores the account (a new
    /// token for one already signed in) with what is known of the token (`details`: its name,
    /// its expiry) and, when a device token is set, reconciles its server. The token goes
    /// where `choice` says (`APITokens.keep`; nil: the keyring when one answers). The token of
    /// an account signed in already changes under its lease (`holdingLease`); `waiting` is
    /// told the pid of another process holding it, when the sign-in waits for it.
    package func signIn(
        instance: InstanceURL, username: String, apiToken: Secret, details: APITokenDetails = .unknown, choice: TokenStoreChoice? = nil,
        leaseWait: Duration = signInLeaseWait, waiting: (@Sendable (Int32) -> Void)? = nil
    ) async throws -> SignedIn {
        if let twin = try await Self.signedInTwice(in: store, keyring: options.keyring, instance: instance, username: username, apiToken: apiToken) {
            throw SignInFailure.alreadySignedIn(as: twin)
        }
        let name = AccountRecord.name(username: username, instance: instance)
        let (account, kept) = try await holdingLease(of: name, waitingAtMost: leaseWait, waiting: waiting) {
            try await tokens.signIn(
                instance: instance, username: username, apiToken: apiToken, details: details, choice: choice, now: options.now())
        }
        guard try await store.device().token != nil else {
            return SignedIn(account: account, outcomes: [], deviceTokenSet: false, kept: kept)
        }
        return SignedIn(account: account, outcomes: try await reconcileServer(of: instance), deviceTokenSet: true, kept: kept)
    }

    private static func failure(_ error: any Error) -> SignInFailure {
        guard let error = error as? GitbayError else { return .failed(error) }
        switch error.kind {
        case .authFailed: return .tokenRefused
        case .readOnlyToken: return .readOnlyToken
        case .notJSON: return .notGitbay
        default: return .failed(error)
        }
    }
}
