import GitbayAPI
import GitbayKeyring
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
/// server only), over the transport given here. Every change reconciles what it touches;
/// `reconcile()` brings every account in line (call it at launch, on a timer, and after the
/// system hands over a new device token). `suspend()` closes the database when the app goes
/// to the background, and `resume()` opens it again.
///
/// ```swift
/// let sync = try await GitbayPushSync(databasePath: path, transport: URLSessionTransport())
/// try await sync.setDeviceToken(apnsToken, label: "Ann's phone")
/// let signIn = try await sync.signIn(instance: "https://gitbay.org", apiToken: token)
/// for result in try await sync.reconcile() where !result.succeeded { print(result.name, result.condition) }
/// ```
public final class GitbayPushSync: Sendable {
    let location: StateLocation
    let options: Reconciler.Options
    let logger: Logger
    let removalStep: AppRemovalStep
    /// The app's own tokens, when it keeps them (`tokenSource`).
    let appTokens: AppOwnedTokens?
    let lifecycle: EngineLifecycle
    /// Given to the database each time it is opened.
    let fileProtection: GitbayFileProtection?
    let broadcast = SnapshotBroadcast()

    /// Opens (creating and migrating when needed) the state database at `databasePath`; its
    /// folder is made private to the user, and given `configuration.fileProtection` on Apple's
    /// platforms. `removalStep` runs when an account is signed out, after this device is
    /// deregistered and before its API token is deleted (`setRemovalStep` changes it later). Where the API tokens are kept: `tokenSource`, the app's own store,
    /// which the engine only reads (the only copy); else `tokenStore`, where the engine keeps
    /// them (the database keeps only a reference); else the database. `log` receives the
    /// engine's log records.
    public init(
        databasePath: String, transport: any HTTPTransport, configuration: GitbayConfiguration = GitbayConfiguration(),
        removalStep: (any GitbayRemovalStep)? = nil, tokenSource: (any GitbayTokenSource)? = nil, tokenStore: (any APITokenStore)? = nil,
        log: GitbayLogHandler? = nil
    ) async throws {
        precondition(tokenSource == nil || tokenStore == nil, "tokens are kept in one place: the app's source or the engine's store")
        location = StateLocation(databasePath: databasePath)
        appTokens = tokenSource.map(AppOwnedTokens.init)
        let keyring: (any TokenKeyring)? = appTokens ?? tokenStore.map(AppTokenKeyring.init)
        var options = Reconciler.Options(concurrency: configuration.concurrency, client: configuration.client(over: transport), keyring: keyring)
        options.perTLSInstance = min(options.perTLSInstance, configuration.concurrency)
        self.options = options
        logger = log?.logger ?? .disabled
        self.removalStep = AppRemovalStep(removalStep)
        fileProtection = configuration.fileProtection
        let store = try await Self.open(location, protection: fileProtection)
        appTokens?.use(store)
        lifecycle = EngineLifecycle(SyncEngine(store: store, options: options, logger: logger, removalStep: self.removalStep))
    }

    /// The database at `location`, opened (created and migrated when needed) and given `protection`.
    static func open(_ location: StateLocation, protection: GitbayFileProtection?) async throws -> StateStore {
        let store: StateStore
        do { store = try await StateStore.open(location) } catch let error as StoreError { throw GitbayDatabaseFailure(error) }
        try protection?.apply(to: location)
        return store
    }

    /// Sets (or, with nil, clears) the step that runs when an account is signed out.
    public func setRemovalStep(_ step: (any GitbayRemovalStep)?) {
        removalStep.set(step)
    }

    /// Runs `body` with the open engine; throws `GitbaySuspended` while suspended. A change
    /// tells the change stream once it is done.
    func withEngine<T>(changing: Bool = true, _ body: (SyncEngine) async throws -> T) async throws -> T {
        let engine = try lifecycle.enter()
        defer { lifecycle.leave() }
        let result: T
        do {
            result = try await body(engine)
        } catch let error as StoreError {
            throw GitbayDatabaseFailure(error)
        } catch SyncEngine.Refusal.beingSignedOut(let account) {
            throw GitbayAccountBeingSignedOut(account: GitbayAccount(account))
        }
        if changing { await publish(engine) }
        return result
    }

    /// The signed-in accounts, in sign-in order.
    public func accounts() async throws -> [GitbayAccount] {
        try await withEngine(changing: false) { engine in try await engine.store.accounts().map(GitbayAccount.init) }
    }

    /// Signs in with a full-scope API token: checked with the server first (`whoami`, then a
    /// write it refuses before running), stored, and registered at once when a device token
    /// is set. A failed sign-in stores nothing and throws a `GitbaySignInError`. `verifiedAs`:
    /// the user the app has already verified the token signs in as; the engine then sends no
    /// check of its own (a token that cannot write shows at the first registration).
    @discardableResult
    public func signIn(instance: String, apiToken: String, verifiedAs username: String? = nil) async throws -> GitbaySignIn {
        let url: InstanceURL
        do { url = try InstanceURL(parsing: instance) } catch { throw GitbaySignInError.badInstance(String(describing: error)) }
        if let username, !UserName.isValid(username) { throw GitbaySignInError.unusableUsername(username) }
        let secret = Secret(apiToken)
        return try await withEngine { engine in
            do {
                if let twin = try await SyncEngine.signedInTwice(
                    in: engine.store, keyring: engine.options.keyring, instance: url, username: nil, apiToken: secret)
                {
                    throw SyncEngine.SignInFailure.alreadySignedIn(as: twin)
                }
                let client = GitbayClient(
                    instance: url, apiToken: secret, accountName: url.authority, configuration: engine.options.client, logger: engine.logger)
                var verified = username
                if verified == nil { verified = try await SyncEngine.verifiedUsername(client) }
                guard let username = verified else { preconditionFailure("a sign-in has its user") }
                let signedIn = try await engine.signIn(instance: url, username: username, apiToken: secret)
                return GitbaySignIn(
                    account: GitbayAccount(signedIn.account), results: signedIn.outcomes.map { GitbayAccountResult($0) },
                    deviceTokenSet: signedIn.deviceTokenSet)
            } catch let failure as SyncEngine.SignInFailure {
                throw GitbaySignInError(failure)
            }
        }
    }

    /// Stores this device's push token (a rotation when it differs from the last one). The
    /// next `reconcile()` registers it for every account and removes the old one's rows.
    public func setDeviceToken(_ token: String, label: String? = nil) async throws {
        try await withEngine { engine in _ = try await engine.setDeviceToken(Secret(token), label: label) }
    }

    /// Forgets the device token and removes this device's rows from every account.
    @discardableResult
    public func clearDeviceToken() async throws -> [GitbayAccountResult] {
        try await withEngine { engine in try await engine.clearDeviceToken().map { GitbayAccountResult($0) } }
    }

    /// Stops pushes for an account without signing it out; its server's accounts are reconciled.
    @discardableResult
    public func pause(_ account: GitbayAccount) async throws -> [GitbayAccountResult] {
        try await withEngine { engine in
            try await engine.setState(.paused, of: try await record(account, engine)).map { GitbayAccountResult($0) }
        }
    }

    /// Starts pushes again for a paused account; its server's accounts are reconciled.
    @discardableResult
    public func resume(_ account: GitbayAccount) async throws -> [GitbayAccountResult] {
        try await withEngine { engine in
            try await engine.setState(.active, of: try await record(account, engine)).map { GitbayAccountResult($0) }
        }
    }

    /// Makes the account the one that holds this device's token on its server (a server gives
    /// a token to one account at a time); its server's accounts are reconciled.
    @discardableResult
    public func prefer(_ account: GitbayAccount) async throws -> [GitbayAccountResult] {
        try await withEngine { engine in try await engine.prefer(try await record(account, engine)).map { GitbayAccountResult($0) } }
    }

    /// Signs an account out: this device is deregistered with the account's own token, the
    /// removal step runs, and only then are the token and records deleted. A removal that
    /// cannot reach the server is kept and finished by a later `reconcile()`; `force` deletes
    /// the token anyway, leaving the rows it could not remove.
    @discardableResult
    public func signOut(_ account: GitbayAccount, force: Bool = false) async throws -> GitbaySignOut {
        try await withEngine { engine in
            let removed = try await engine.removeAccount(try await record(account, engine), force: force)
            return GitbaySignOut(
                removal: GitbayRemoval(removed.result), result: GitbayAccountResult(removed.result.outcome, removal: removed.result),
                handedOver: removed.handedOver.map { GitbayAccountResult($0) })
        }
    }

    private func record(_ account: GitbayAccount, _ engine: SyncEngine) async throws -> AccountRecord {
        guard let record = try await engine.store.account(id: account.id) else {
            throw GitbayAccountNotFound(id: account.id, name: account.name)
        }
        return record
    }
}
