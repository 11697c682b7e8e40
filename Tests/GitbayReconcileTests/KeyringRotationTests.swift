import Foundation
import GitbayFake
import GitbayKeyring
import ReconcileSupport
import Testing
import TransportSupport

@testable import GitbayAPI
@testable import GitbayReconcile
@testable import GitbayState
@testable import GitbaySupport

/// Runs rotate a minted token the OS keyring holds: the successor goes to a keyring item of
/// its own, the database points at it in the transaction that records the predecessor as
/// stale, then the predecessor is revoked and its item deleted. Wherever a run stops, the
/// next one leaves exactly one valid token of this install and one keyring item, the one in use.
@Suite("Rotating a token the keyring holds")
struct KeyringRotationTests {
    static let lifetime = Duration.seconds(90 * 86_400)
    /// Within a third of the token's lifetime of its expiry.
    static let later: @Sendable () -> Date = { Date().addingTimeInterval(61 * 86_400) }
    /// As late, some seconds on: a successor minted then is named apart from one minted `later`.
    static let afterwards: @Sendable () -> Date = { Date().addingTimeInterval(61 * 86_400 + 10) }

    let world: ReconcileWorld
    let server: FakeGitbayServer
    let keyring: MemoryKeyring
    let alice: AccountRecord
    /// The token `login --ssh` minted, and its name.
    let first: String
    let name: String
    /// The keyring item of alice's token in this database: her name and this install's.
    let own: String

    init() async throws {
        let world = try await ReconcileWorld()
        let server = try FakeGitbayServer()
        let keyring = MemoryKeyring()
        let name = "gitbay-sync-laptop-" + (try await world.store.device().installMarker)
        first = server.mintToken(for: "alice", name: name, lifetime: Self.lifetime)
        (self.world, self.server, self.keyring, self.name) = (world, server, keyring, name)
        alice = try await Self.engine(world, server, keyring).signIn(
            instance: try InstanceURL(parsing: server.baseURL), username: "alice", apiToken: Secret(first),
            details: APITokenDetails(name: name, expiresAt: Date().addingTimeInterval(Self.lifetime.inSeconds - 1), lifetime: Self.lifetime),
            choice: .keyring
        ).account
        own = APITokens.installItem(of: alice.name, installMarker: try await world.store.device().installMarker)
        try await world.setToken()
        _ = try await engine().run()
        // The server's clock is where the runs' is: a token's expiry is what the server answers.
        server.now = Self.later()
    }

    static func engine(
        _ world: ReconcileWorld, _ server: FakeGitbayServer, _ keyring: MemoryKeyring, client: ClientConfiguration? = nil,
        now: @escaping @Sendable () -> Date = { Date() }
    ) -> SyncEngine {
        var memory = ReconcileWorld.client
        memory.http = MemoryTransport([server])
        return SyncEngine(
            store: world.store, options: .init(honourBackoff: false, client: client ?? memory, now: now, keyring: keyring), logger: .disabled)
    }

    func engine(client: ClientConfiguration? = nil, now: @escaping @Sendable () -> Date = { Date() }) -> SyncEngine {
        Self.engine(world, server, keyring, client: client, now: now)
    }

    /// The keyring's items now.
    var items: [String: Secret] { keyring.items.withLock { $0 } }

    /// This install's tokens of alice's that the server takes.
    var validTokens: [String] {
        server.tokens(of: "alice").filter { $0.name.hasPrefix(name) && server.accepts($0.value) }.map(\.value)
    }

    @Test("a run mints the successor into a keyring item of its own, points the database at it, then revokes the old token and deletes its item")
    func rotates() async throws {
        let reads = keyring.reads
        let entries = try await engine(now: Self.later).run()
        #expect(keyring.reads == reads + 1, "the run's one read of the keyring gives the rotation its token too")
        let renewal = try #require(entries.first?.outcome.tokenRenewal)
        #expect(renewal.predecessor == name && renewal.predecessorRevoked && renewal.failure == nil)
        let successor = try #require(renewal.successor)
        let item = TokenRotation.keyringItem(of: alice.name, tokenName: successor)
        #expect(Array(items.keys) == [item], "the successor's item only: the old one is deleted")
        let token = try #require(items[item])
        #expect(validTokens == [token.exposedValue] && !server.accepts(first))
        #expect(try await world.store.keyringItems()[alice.id] == item)
        #expect(try await world.store.apiToken(ofAccount: alice.id) == nil, "the database holds only the reference")
        #expect(try await world.store.storedAPIToken(ofAccount: alice.id, token: token)?.staleNames == [])
        // The next run reads the successor from its item, and lists with it.
        let next = try #require(try await engine(now: Self.later).run().first?.outcome)
        #expect(!next.isFailure && next.condition == .registered && next.tokenRenewal == nil)
    }

    @Test("no successor is minted for an account a removal deleted before the successor's name was recorded")
    func accountDeletedBeforeSuccessor() async throws {
        let options = engine(now: Self.later).options
        let stored = try #require(try await world.store.storedAPIToken(ofAccount: alice.id, token: Secret(first)))
        let marker = try await world.store.device().installMarker
        let machine = RenewalMachine(
            RenewalMachine.Facts(
                details: stored.details, staleNames: stored.staleNames, keyringItem: stored.keyringItem, staleItems: stored.staleItems,
                accountName: alice.name, installMarker: marker, keyringPresent: true))
        var renewal = TokenRenewer.Renewal(
            account: alice, stored: stored,
            client: GitbayClient(
                instance: alice.instance, apiToken: stored.token, accountName: alice.name, configuration: options.client, logger: .disabled),
            leaseTaken: false, machine: machine)
        try await world.store.setState(.removing, ofAccount: alice.id)
        let removing = try #require(try await world.store.account(id: alice.id))
        #expect(try await world.store.deleteAccount(id: alice.id, removalStartedAt: removing.removalStartedAt) != .notRemoving)

        let renewer = TokenRenewer(store: world.store, options: options, logger: .disabled)
        let answer = await renewer.carryOut(.recordSuccessor(name: name + "-next", keyringItem: nil, at: Self.later()), of: &renewal)
        guard case .failed(.other) = answer else {
            Issue.record("the renewal goes on to mint a successor no record names: \(answer)")
            return
        }
    }

    /// Where a rotation's run stops.
    enum CrashPoint: String, Sendable, CaseIterable, CustomTestStringConvertible {
        /// The server minted the successor; its answer never came back.
        case mintAnswerLost
        /// The keyring stored the successor's item; its answer never came back (locked meanwhile).
        case keyringWriteLost
        /// The database points at the successor; the predecessor's revocation was never sent.
        case revocationUnsent
        /// The predecessor is revoked; the keyring refused to delete its item.
        case oldItemKept
        var testDescription: String { rawValue }
    }

    /// The client and keyring faults of a run that stops at `point`.
    func crashing(at point: CrashPoint) -> ClientConfiguration? {
        // Request 1 is the list, 2 the create, 3 the revocation of the old token.
        switch point {
        case .mintAnswerLost: return TokenRotationTests.crashingClient(server, at: 2, afterServerApplied: true)
        case .keyringWriteLost:
            keyring.storeLost.withLock { $0 = .locked }
            return nil
        case .revocationUnsent: return TokenRotationTests.crashingClient(server, at: 3, afterServerApplied: false)
        case .oldItemKept:
            keyring.deleteFailure.withLock { $0 = .locked }
            return nil
        }
    }

    @Test(
        "a rotation stopped anywhere keeps the token in use; the next run leaves exactly one valid token and one keyring item",
        arguments: CrashPoint.allCases)
    func crashHealed(at point: CrashPoint) async throws {
        let crashed = try #require(try await engine(client: crashing(at: point), now: Self.later).run().first?.outcome)
        #expect(crashed.condition != .authFailed, "a stopped rotation is never a refused token")
        if point == .keyringWriteLost {
            #expect(crashed.tokenRenewal?.keyringUnavailable == .locked && !crashed.isFailure, "the keyring's reason, as for a read")
        }
        #expect(validTokens.count == (point == .oldItemKept ? 1 : 2), "the successor is minted; the predecessor is revoked only at the end")
        #expect(items.count == (point == .mintAnswerLost ? 1 : 2))
        // Whatever the database names is in the keyring and taken by the server.
        let current = try #require(try await world.store.keyringItems()[alice.id])
        #expect(items[current].map { server.accepts($0.exposedValue) } == true)

        keyring.storeLost.withLock { $0 = nil }
        keyring.deleteFailure.withLock { $0 = nil }
        let healed = try #require(try await engine(now: Self.afterwards).run().first?.outcome)
        #expect(!healed.isFailure && healed.condition == .registered)
        let item = try #require(try await world.store.keyringItems()[alice.id])
        let token = try #require(items[item])
        #expect(Array(items.keys) == [item], "one keyring item, the one in use")
        #expect(validTokens == [token.exposedValue], "exactly one valid token of this install, the one in use")
        #expect(try await world.store.storedAPIToken(ofAccount: alice.id, token: token)?.staleNames == [])
        let steady = try #require(try await engine(now: Self.afterwards).run().first?.outcome)
        #expect(!steady.isFailure && steady.tokenRenewal == nil)
    }

    @Test("a locked keyring leaves the account waiting with nothing minted; once it answers, the token is rotated")
    func lockedKeyringWaits() async throws {
        server.resetRequests()
        keyring.failure.withLock { $0 = .locked }
        let waiting = try #require(try await engine(now: Self.later).run().first?.outcome)
        #expect(waiting.action == .skipped && waiting.skipReason == .keyringUnavailable(.locked))
        #expect(waiting.condition != .authFailed && !waiting.isFailure && waiting.tokenRenewal == nil)
        #expect(server.requests().isEmpty, "nothing minted, nothing sent")
        #expect(try await world.store.account(id: alice.id)?.state == .active)

        keyring.failure.withLock { $0 = nil }
        let rotated = try #require(try await engine(now: Self.later).run().first?.outcome)
        #expect(rotated.tokenRenewal?.predecessorRevoked == true && rotated.tokenRenewal?.successor != nil)
        #expect(!server.accepts(first) && validTokens.count == 1 && items.count == 1)
    }

    @Test("a removal after a rotation deletes every keyring item of the account's tokens and revokes them")
    func removalDeletesEveryItem() async throws {
        keyring.deleteFailure.withLock { $0 = .locked }
        let rotated = try await engine(now: Self.later).run()
        #expect(rotated.first?.outcome.tokenRenewal?.successor != nil && items.count == 2, "the old item is left for later")
        keyring.deleteFailure.withLock { $0 = nil }

        let removed = try await engine(now: Self.later).removeAccount(alice, force: false)
        guard case .removed = removed.result else {
            Issue.record("the removal completes: \(removed.result)")
            return
        }
        #expect(items.isEmpty, "no keyring item is left behind")
        #expect(validTokens.isEmpty)
    }

    @Test("a sign-in after a rotation keeps its token in the account's item and deletes the rotated one; later runs never delete it")
    func signInAfterRotation() async throws {
        // The old token revoked, its item (the account's own) left for a later run to delete.
        keyring.deleteFailure.withLock { $0 = .locked }
        let successor = try #require(try await engine(now: Self.later).run().first?.outcome.tokenRenewal?.successor)
        keyring.deleteFailure.withLock { $0 = nil }

        let again = server.mintToken(for: "alice", name: name + "-again", lifetime: Self.lifetime)
        _ = try await engine(now: Self.later).signIn(
            instance: try InstanceURL(parsing: server.baseURL), username: "alice", apiToken: Secret(again),
            details: APITokenDetails(name: name + "-again"), choice: .keyring)
        #expect(items == [own: Secret(again)], "the rotated token's item is deleted, the new one is the account's")
        let stored = try #require(try await world.store.storedAPIToken(ofAccount: alice.id, token: Secret(again)))
        #expect(stored.keyringItem == own)
        #expect(stored.staleNames.contains(name) && stored.staleItems[name] == nil, "the account's item holds the new token: not stale")
        #expect(stored.staleNames.contains(successor), "the token the sign-in replaced is left for a run to revoke")

        let run = try #require(try await engine(now: Self.later).run().first?.outcome)
        #expect(!run.isFailure && run.condition == .registered)
        #expect(items == [own: Secret(again)] && server.accepts(again))
        #expect(validTokens == [again], "the rotation's successor, replaced by the sign-in, is revoked")
    }

    /// Signs alice in again with `token`, named `tokenName`, minted by this install, into the keyring.
    func signInAgain(_ token: String, named tokenName: String) async throws {
        _ = try await engine().signIn(
            instance: try InstanceURL(parsing: server.baseURL), username: "alice", apiToken: Secret(token),
            details: APITokenDetails(name: tokenName, expiresAt: Date().addingTimeInterval(Self.lifetime.inSeconds - 1), lifetime: Self.lifetime),
            choice: .keyring)
    }

    @Test("a sign-in again stopped between the keyring and the database keeps the token in use; the next run revokes the new one")
    func signInStoppedHealed() async throws {
        let againName = TokenRotation.successorName(of: name, at: Date())
        let again = server.mintToken(for: "alice", name: againName, lifetime: Self.lifetime)
        // The keyring stored it and the answer never came back: the sign-in stops there.
        keyring.storeLost.withLock { $0 = .locked }
        await #expect(throws: SyncEngine.SignInFailure.self) { try await signInAgain(again, named: againName) }
        keyring.storeLost.withLock { $0 = nil }

        let current = try #require(try await world.store.keyringItems()[alice.id])
        #expect(items[current] == Secret(first), "the item the database names still holds the token it names")
        #expect(try await world.store.storedAPIToken(ofAccount: alice.id, token: Secret(first))?.details.name == name)
        let run = try #require(try await engine().run().first?.outcome)
        #expect(!run.isFailure && run.condition == .registered)
        #expect(run.tokenRenewal?.revoked == [againName])
        #expect(items == [own: Secret(first)], "the new token's item is deleted")
        #expect(validTokens == [first], "exactly one valid token of this install, the one in use")
    }

    @Test("a sign-in again that ends with the old item undeleted: the next run revokes the old token and deletes its item")
    func signInOldItemKept() async throws {
        let againName = TokenRotation.successorName(of: name, at: Date())
        let again = server.mintToken(for: "alice", name: againName, lifetime: Self.lifetime)
        keyring.deleteFailure.withLock { $0 = .locked }
        try await signInAgain(again, named: againName)
        keyring.deleteFailure.withLock { $0 = nil }

        let current = try #require(try await world.store.keyringItems()[alice.id])
        #expect(current != own && items[current] == Secret(again), "the new token went to an item of its own")
        #expect(items[own] == Secret(first))
        let run = try #require(try await engine().run().first?.outcome)
        #expect(!run.isFailure && run.condition == .registered)
        #expect(items == [current: Secret(again)], "one keyring item, the one in use")
        #expect(validTokens == [again])
        let steady = try #require(try await engine().run().first?.outcome)
        #expect(!steady.isFailure && steady.tokenRenewal == nil && steady.requests == 1)
    }
}
