import Foundation
import GitbayFake
import TestSupport
import Testing
import TransportSupport

@testable import GitbayAPI
@testable import GitbayReconcile
@testable import GitbayState
@testable import GitbaySupport

/// A private state database driven through `Reconciler` and `AccountRemoval` directly, against
/// fake servers on 127.0.0.1: what the commands do, without the command line.
package final class ReconcileWorld: Sendable {
    package static let token = "c0ffee00aaaabbbbccccddddeeeeffff"
    package static let rotated = "77aa88bb99cc00dd11ee22ff33445566"

    /// Short timeouts and no waits between attempts.
    package static let client = ClientConfiguration(
        transport: TransportConfiguration(connectTimeout: .seconds(2), requestTimeout: .seconds(3), maxResponseBytes: 1 << 20),
        retry: RetryPolicy(maxAttempts: 2, baseDelay: .zero, maxDelay: .zero, maxRetryAfter: .seconds(1), jitter: .none),
        http: ServerTransport.shared
    )

    /// As `client`, but a hung request outlasts any wait of a test: only a stop or the server's
    /// end cuts it short.
    package static let patientClient = ClientConfiguration(
        transport: TransportConfiguration(connectTimeout: .seconds(2), requestTimeout: .seconds(120), maxResponseBytes: 1 << 20),
        retry: RetryPolicy(maxAttempts: 1, baseDelay: .zero, maxDelay: .zero, maxRetryAfter: .seconds(1), jitter: .none),
        http: ServerTransport.shared
    )

    package let folder: TemporaryDirectory
    package let store: StateStore

    package init() async throws {
        folder = try TemporaryDirectory()
        store = try await StateStore.open(StateLocation(databasePath: folder.databasePath))
    }

    /// Signs `user` in on `server` with a fresh full-scope token (no reconcile, unlike `login`).
    @discardableResult
    package func signIn(_ server: FakeGitbayServer, _ user: String, apiToken: String? = nil) async throws -> AccountRecord {
        try await store.signIn(
            instance: InstanceURL(parsing: server.baseURL), username: user, apiToken: Secret(apiToken ?? server.mintToken(for: user))
        )
    }

    /// Sets the device token (and label), as `device set-token` does.
    package func setToken(_ token: String = ReconcileWorld.token, label: String? = "laptop") async throws {
        _ = try await store.setDeviceToken(Secret(token), label: label)
    }

    package func reconciler(
        honourBackoff: Bool = true, client: ClientConfiguration = ReconcileWorld.client, now: @escaping @Sendable () -> Date = { Date() }
    ) -> Reconciler {
        Reconciler(store: store, options: .init(honourBackoff: honourBackoff, client: client, now: now), logger: .disabled)
    }

    /// One run, as `run` makes it: every account (or `only` these), honouring backoffs; the
    /// outcomes by account name.
    package func run(
        only: [AccountRecord]? = nil, honourBackoff: Bool = true, client: ClientConfiguration = ReconcileWorld.client,
        now: @escaping @Sendable () -> Date = { Date() }
    ) async throws -> [String: AccountOutcome] {
        let reconciler = reconciler(honourBackoff: honourBackoff, client: client, now: now)
        let outcomes = try await reconciler.reconcile(only: only.map { Set($0.map(\.id)) })
        return Dictionary(uniqueKeysWithValues: outcomes.map { ($0.account, $0) })
    }

    /// Changes what an account wants and reconciles its instance, as `pause` and `resume` do.
    package func change(_ account: AccountRecord, to state: AccountState) async throws -> [String: AccountOutcome] {
        try await store.setState(state, ofAccount: account.id)
        return try await run(only: try await store.accounts().filter { $0.instance == account.instance }, honourBackoff: false)
    }

    /// The removal `remove-account` makes, with `step` between the deregistration and the
    /// deletion (none by default).
    package func removal(
        step: any PreRemovalStep = NoPreRemovalStep(), shutdown: ShutdownSignal = ShutdownSignal(),
        now: @escaping @Sendable () -> Date = { Date() }
    ) -> AccountRemoval {
        AccountRemoval(reconciler: reconciler(honourBackoff: false, now: now), step: step, shutdown: shutdown)
    }

    /// Writes an executable pre-remove hook with this shell body; returns its path.
    package func installHook(_ body: String) throws -> String {
        let path = folder.path + "/pre-remove"
        try ("#!/bin/sh\n" + body + "\n").write(toFile: path, atomically: true, encoding: .utf8)
        chmod(path, 0o755)
        return path
    }

    /// Signs alice in on `server` (with `apiToken`), sets the device token and registers her.
    package func registeredAlice(on server: FakeGitbayServer, apiToken: String? = nil) async throws -> AccountRecord {
        let alice = try await signIn(server, "alice", apiToken: apiToken)
        try await setToken()
        _ = try await run()
        #expect(server.devices(of: "alice").count == 1)
        return alice
    }

    /// Marks the account `removing` and finishes the removal, as `remove-account` does.
    package func remove(_ account: AccountRecord, force: Bool = false, removal: AccountRemoval? = nil) async throws -> AccountRemoval.Result {
        try await store.setState(.removing, ofAccount: account.id)
        let removing = try #require(try await store.account(id: account.id))
        return try await (removal ?? self.removal()).finish(removing, force: force)
    }

    /// Signs `user` in with a token minted on `server` under `name` for `lifetime` (nil: no
    /// expiry is recorded), its details recorded as `login --ssh` records them. Returns the
    /// account and the token.
    package func signInMinted(
        _ server: FakeGitbayServer, _ user: String, name: String, lifetime: Duration? = .seconds(90 * 86_400)
    ) async throws -> (AccountRecord, String) {
        let token = server.mintToken(for: user, name: name, lifetime: lifetime)
        let expiresAt = lifetime.map { Date().addingTimeInterval($0.inSeconds).addingTimeInterval(-1) }
        let account = try await store.signIn(
            instance: InstanceURL(parsing: server.baseURL), username: user, apiToken: Secret(token),
            details: APITokenDetails(name: name, expiresAt: expiresAt, lifetime: lifetime))
        return (account, token)
    }

    /// The use cases over this world's store, as `run` and `remove-account` make them.
    package func engine(
        client: ClientConfiguration = ReconcileWorld.client, step: any PreRemovalStep = NoPreRemovalStep(),
        now: @escaping @Sendable () -> Date = { Date() }
    ) -> SyncEngine {
        SyncEngine(store: store, options: .init(honourBackoff: false, client: client, now: now), logger: .disabled, removalStep: step)
    }
}
