// Compiled, never run: the kit's whole public API used from an app module (main-actor
// isolation by default, MemberImportVisibility) with `import GitbaySyncKit` alone, so that a
// declaration an app cannot reach, or reaches only with a warning, fails this example's
// warning-free build. The deprecated earlier names are left out: using them warns, as meant.
import GitbaySyncKit

/// Every call an app makes on the engine, and the transport and token store it may supply.
enum APISurface {
    /// The registrar opened each way an app may open it, then every call on it.
    static func engine(databasePath: String, keychain: AppKeychain, payload: String) async throws {
        let limits = GitbayConfiguration(
            connectTimeout: .seconds(5), requestTimeout: .seconds(20), accountDeadline: .seconds(25), attempts: 2, concurrency: 4,
            fileProtection: .completeUntilFirstUserAuthentication)
        let log = GitbayLogHandler(minimumLevel: .notice) { record in print(record.level, record.line, record.message, record.fields) }
        _ = log.minimumLevel
        _ = (limits.connectTimeout, limits.requestTimeout, limits.accountDeadline, limits.attempts, limits.concurrency, limits.fileProtection)
        _ = try await GitbayPushSync(databasePath: databasePath, transport: URLSessionTransport(), tokenStore: AppTokenItems())
        let sync = try await GitbayPushSync(
            databasePath: databasePath, transport: AppTransport(), configuration: limits, removalStep: AppSignOutStep(keychain: keychain),
            tokenSource: keychain, log: log)
        sync.setRemovalStep(nil)
        try await sync.setDeviceToken("00", label: "phone")
        let signIn = try await sync.signIn(instance: "https://gitbay.org", apiToken: "token", verifiedAs: "ann")
        _ = (signIn.account, signIn.results, signIn.deviceTokenSet)
        let ann = signIn.account
        _ = (ann.id, ann.name, ann.instance, ann.username, ann.state, GitbayAccount.name(instance: "https://gitbay.org", username: "ann"))
        _ = try await sync.accounts()
        let results = try await sync.pause(ann) + sync.resume(ann) + sync.prefer(ann) + sync.reconcile() + sync.clearDeviceToken()
        results.forEach(APISurface.read)
        let run = try await sync.reconcile(budget: .seconds(25))
        _ = (run.finished, run.unfinished, run.isComplete)
        let signOut = try await sync.signOut(ann, force: false)
        _ = (signOut.result, signOut.handedOver, words(signOut.removal))
        let adoption = try await sync.adopt([GitbayAppAccount(instance: "https://gitbay.org", username: "ann", apiToken: "token")])
        _ = (adoption.signedIn, adoption.signedOut, adoption.kept, adoption.isComplete)
        for refused in adoption.refused { _ = (refused.account.instance, refused.account.username, refused.account.name, words(refused.error)) }
        let snapshot = try await sync.snapshot()
        _ = (snapshot.deviceTokenSet, snapshot.deviceLabel)
        snapshot.accounts.forEach(APISurface.read)
        for await _ in try await sync.changes() { break }
        if let push = try await sync.resolvePush(payload) {
            _ = (push.account, push.badge, push.path, push.webURL)
            if let screen = push.destination { _ = (screen.kind.rawValue, screen.owner, screen.repository, screen.number) }
        }
        _ = GitbayPushDestination(kind: .mergeRequest, owner: "ann", repository: "site", number: 7)
        await sync.suspend()
        _ = sync.isSuspended
        try await sync.resume()
    }

    /// The errors the engine throws, by type.
    static func errors(_ error: any Error) -> String {
        switch error {
        case let error as GitbaySignInError: words(error)
        case let error as GitbayAccountBeingSignedOut: error.account.name
        case let error as GitbayAccountNotFound: "\(error.id) \(error.name)"
        case let error as GitbayDatabaseFailure: "\(words(error.kind)) \(error.path) \(error.description)"
        case let error as GitbayPayloadError: words(error)
        case is GitbaySuspended: "suspended"
        case let error as TransportError: "\(words(error)) \(error.isRetryable) \(error.description)"
        default: "other"
        }
    }
}

/// The app's own transport: URLSessionTransport over the app's session configuration, every
/// request looked at first (where an app would log or sign it).
nonisolated struct AppTransport: HTTPTransport {
    let inner = URLSessionTransport(environment: [:])

    func send(_ request: HTTPRequest, limits: TransportConfiguration) async throws(TransportError) -> HTTPResponse {
        try request.checkHeaders()
        _ = (request.method, request.url, request.headers, request.body)
        var limits = limits.limited(to: .seconds(20))
        limits.trustCertificates(from: [:])
        _ = (limits.connectTimeout, limits.requestTimeout, limits.maxResponseBytes, limits.certificateFile, limits.certificateFolder)
        limits.responseHeaders = ["retry-after"]
        let response = try await inner.send(request, limits: limits)
        return HTTPResponse(status: response.status, headers: response.headers, body: response.body)
    }

    func start(
        _ request: HTTPRequest, limits: TransportConfiguration, completion: @escaping @Sendable (Result<HTTPResponse, TransportError>) -> Void
    ) -> TransportTransfer {
        let transfer = inner.start(request, limits: limits, completion: completion)
        return TransportTransfer { transfer.cancel() }
    }
}

/// An app's own store the engine keeps tokens in (the other choice to `GitbayTokenSource`).
nonisolated final class AppTokenItems: APITokenStore {
    func store(_ token: String, for account: String) async throws {}
    func readAll() async throws -> [String: String] { [:] }
    func delete(account: String) async throws {}
}
