import GitbayAPI
import GitbayReconcile
import GitbayState
import GitbaySupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Keeps this device's push registration true for every signed-in gitbay account: the engine
/// of the `gitbay-sync` agent, for an app to embed in place of its own registrar.
///
/// Each account's requests go through a short-lived client of its own (its API token, its
/// instance only), over the transport given here. Every change reconciles what it touches;
/// `reconcile()` brings every account in line (call it at launch, on a timer, and after the
/// system hands over a new device token).
///
/// ```swift
/// let registrar = try await PushRegistrar(databasePath: path, transport: URLSessionTransport())
/// try await registrar.setDeviceToken(apnsToken, label: "Ann's phone")
/// let account = try await registrar.signIn(instance: "https://gitbay.org", apiToken: token)
/// for report in try await registrar.reconcile() { print(report.account, report.condition) }
/// ```
public final class PushRegistrar: Sendable {
    let engine: SyncEngine

    /// Opens (creating and migrating when needed) the state database at `databasePath`; its
    /// folder is made private to the user. `removalStep` runs when an account is signed out,
    /// after this device is deregistered and before its API token is deleted. `tokenStore`
    /// keeps the API tokens of the accounts signed in from now on (the database keeps only a
    /// reference), and takes over those the database holds from an earlier version; nil keeps
    /// them in the database.
    public init(
        databasePath: String, transport: any HTTPTransport, removalStep: (any RemovalStep)? = nil, tokenStore: (any APITokenStore)? = nil
    ) async throws {
        let store = try await StateStore.open(StateLocation(databasePath: databasePath))
        let options = Reconciler.Options(client: ClientConfiguration(http: transport), keyring: tokenStore.map(AppTokenKeyring.init))
        engine = SyncEngine(
            store: store, options: options, logger: .disabled,
            removalStep: removalStep.map(AppRemovalStep.init) ?? NoPreRemovalStep())
    }

    /// The signed-in accounts, by name.
    public func accounts() async throws -> [Account] {
        try await engine.store.accounts().map(Account.init)
    }

    /// Signs in with a full-scope API token: checked with the server first (`whoami`, then a
    /// write it refuses before running), stored, and registered at once when a device token
    /// is set. A failed sign-in stores nothing and throws a `SignInError`.
    @discardableResult
    public func signIn(instance: String, apiToken: String) async throws -> Account {
        let url: InstanceURL
        do { url = try InstanceURL(parsing: instance) } catch { throw SignInError.badInstance(String(describing: error)) }
        let secret = Secret(apiToken)
        do {
            if let twin = try await SyncEngine.signedInTwice(
                in: engine.store, keyring: engine.options.keyring, instance: url, username: nil, apiToken: secret)
            {
                throw SyncEngine.SignInFailure.alreadySignedIn(as: twin)
            }
            let client = GitbayClient(
                instance: url, apiToken: secret, accountName: url.authority, configuration: engine.options.client, logger: .disabled)
            let username = try await SyncEngine.verifiedUsername(client)
            return Account(try await engine.signIn(instance: url, username: username, apiToken: secret).account)
        } catch let failure as SyncEngine.SignInFailure {
            throw SignInError(failure)
        }
    }

    /// Stores this device's push token (a rotation when it differs from the last one). The
    /// next `reconcile()` registers it for every account and removes the old one's rows.
    public func setDeviceToken(_ token: String, label: String? = nil) async throws {
        _ = try await engine.setDeviceToken(Secret(token), label: label)
    }

    /// Forgets the device token and removes this device's rows from every account.
    @discardableResult
    public func clearDeviceToken() async throws -> [AccountReport] {
        try await engine.clearDeviceToken().map(AccountReport.init)
    }

    /// Brings every account in line with what it should have, and finishes the sign-outs whose
    /// deregistration now goes through. Accounts waiting out a server's backoff are tried too.
    public func reconcile() async throws -> [AccountReport] {
        try await engine.run().map(AccountReport.init)
    }

    /// Stops pushes for an account without signing it out; its instance is reconciled.
    @discardableResult
    public func pause(_ account: Account) async throws -> [AccountReport] {
        try await engine.setState(.paused, of: try record(account)).map(AccountReport.init)
    }

    /// Starts pushes again for a paused account; its instance is reconciled.
    @discardableResult
    public func resume(_ account: Account) async throws -> [AccountReport] {
        try await engine.setState(.active, of: try record(account)).map(AccountReport.init)
    }

    /// Makes the account the one that holds this device's token on its server (a server gives
    /// a token to one account at a time); its instance is reconciled.
    @discardableResult
    public func prefer(_ account: Account) async throws -> [AccountReport] {
        try await engine.prefer(try record(account)).map(AccountReport.init)
    }

    /// Signs an account out: this device is deregistered with the account's own token, the
    /// removal step runs, and only then are the token and records deleted. A removal that
    /// cannot reach the server is kept and finished by a later `reconcile()`; `force` deletes
    /// the token anyway, leaving the rows it could not remove.
    @discardableResult
    public func signOut(_ account: Account, force: Bool = false) async throws -> SignOutResult {
        SignOutResult(try await engine.removeAccount(try record(account), force: force).result)
    }

    private func record(_ account: Account) async throws -> AccountRecord {
        guard let record = try await engine.store.accounts().first(where: { $0.name == account.name }) else {
            throw AccountNotFound(name: account.name)
        }
        return record
    }
}

/// The account named is not signed in (signed out meanwhile, say).
public struct AccountNotFound: Error, Sendable, Equatable {
    public let name: String
}
