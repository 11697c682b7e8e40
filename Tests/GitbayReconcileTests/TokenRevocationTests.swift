import Foundation
import GitbayFake
import ReconcileSupport
import Synchronization
import TestSupport
import Testing

@testable import GitbayAPI
@testable import GitbayReconcile
@testable import GitbayState
@testable import GitbaySupport

/// 9. A removal revokes the API token on the server when its name is known, as its last request.
@Suite("Revoking the API token at sign-out")
struct TokenRevocationTests {
    /// A pre-removal step that counts its runs.
    struct CountingStep: PreRemovalStep {
        let runs = Counter()
        func run(for account: AccountRecord, shutdown: ShutdownSignal) async throws { await runs.add() }
    }

    actor Counter {
        private(set) var value = 0
        func add() { value += 1 }
    }

    /// A pre-removal step that signs the account in again, with a token minted under another
    /// name, as `login --ssh` would while the removal waits on the hook.
    final class SignInAgainStep: PreRemovalStep {
        let world: ReconcileWorld
        let server: FakeGitbayServer
        let token = Mutex<String?>(nil)

        init(world: ReconcileWorld, server: FakeGitbayServer) {
            (self.world, self.server) = (world, server)
        }

        func run(for account: AccountRecord, shutdown: ShutdownSignal) async throws {
            let (_, minted) = try await world.signInMinted(server, "alice", name: "gitbay-sync-desk-gbs-aaaaaa")
            token.withLock { $0 = minted }
        }
    }

    @Test("a run's removal whose account is signed in again during the hook does not revoke the new sign-in's token, and keeps the account")
    func signInDuringRunRemoval() async throws {
        let server = try FakeGitbayServer()
        let world = try await ReconcileWorld()
        let (alice, _) = try await world.signInMinted(server, "alice", name: "gitbay-sync-laptop-gbs-aaaaaa")
        try await world.setToken()
        _ = try await world.run()
        try await world.store.setState(.removing, ofAccount: alice.id)
        let step = SignInAgainStep(world: world, server: server)

        let entries = try await world.engine(step: step).run()

        let new = try #require(step.token.withLock { $0 }, "the step ran")
        #expect(server.accepts(new), "the removal revoked the token of the sign-in made during it")
        #expect(!server.requests().contains { $0.argv == ["token", "revoke", "gitbay-sync-desk-gbs-aaaaaa"] })
        #expect(try await world.store.account(id: alice.id)?.state == .active)
        #expect(try await world.store.apiToken(ofAccount: alice.id) == Secret(new))
        guard case .signedInAgain = entries.first?.removal else {
            Issue.record("the removal did not end as signed in again: \(String(describing: entries.first?.removal))")
            return
        }
    }

    static let revokeFailure = FakeFault.status(503, body: #"{"protocol_version":1,"error":"store busy"}"#)

    @Test("a removal revokes a named token, the last request sent with it, and the token is refused afterwards")
    func revokesNamedToken() async throws {
        let server = try FakeGitbayServer()
        let world = try await ReconcileWorld()
        let (alice, token) = try await world.signInMinted(server, "alice", name: "gitbay-sync-laptop-gbs-aaaaaa")
        try await world.setToken()
        _ = try await world.run()
        guard case .removed(let outcome, _, let revocation) = try await world.remove(alice) else {
            Issue.record("a removal with the server up completes")
            return
        }
        #expect(revocation == .revoked(name: "gitbay-sync-laptop-gbs-aaaaaa"))
        // The list, the row's removal, the revocation, then the check that the token is refused.
        #expect(outcome.requests == 4)
        #expect(server.requests().suffix(2).map(\.argv) == [["token", "revoke", "gitbay-sync-laptop-gbs-aaaaaa"], ["whoami"]])
        #expect(!server.accepts(token))
        #expect(server.devices(of: "alice").isEmpty)
        #expect(try await world.store.account(id: alice.id) == nil)
    }

    @Test("a revocation that cannot be sent keeps the account removing; the next run revokes it without running the step again")
    func failedRevocationRetried() async throws {
        let server = try FakeGitbayServer()
        let world = try await ReconcileWorld()
        let (alice, token) = try await world.signInMinted(server, "alice", name: "gitbay-sync-laptop-gbs-bbbbbb")
        try await world.setToken()
        _ = try await world.run()
        server.inject(Self.revokeFailure, command: "token revoke", times: 10)
        let step = CountingStep()
        let result = try await world.remove(alice, removal: world.removal(step: step))
        guard case .kept(let outcome, .revocationFailed(let name, let failure)) = result else {
            Issue.record("a revocation that fails keeps the account, not \(result)")
            return
        }
        #expect(name == "gitbay-sync-laptop-gbs-bbbbbb")
        // The server's failure, as a value: what the account's outcome says too.
        #expect(failure.server?.command == ["token", "revoke"] && failure.server?.httpStatus == 503, "\(failure)")
        #expect(outcome.failure == failure)
        #expect(outcome.condition == .removing)
        #expect(try await world.store.account(id: alice.id)?.state == .removing)
        #expect(try await world.store.apiToken(ofAccount: alice.id) == Secret(token))
        #expect(try await world.store.status(ofAccount: alice.id).detail == AccountRemoval.revocationFailedDetail)
        #expect(server.accepts(token))
        #expect(server.devices(of: "alice").isEmpty)
        #expect(await step.runs.value == 1)

        server.clearFaults()
        let entries = try await world.engine(step: step).run()
        guard case .removed(_, _, .revoked(name: "gitbay-sync-laptop-gbs-bbbbbb")) = try #require(entries.first?.removal) else {
            Issue.record("the next run finishes the removal: \(entries)")
            return
        }
        #expect(await step.runs.value == 1, "the step passed already in this removal")
        #expect(!server.accepts(token))
        #expect(try await world.store.account(id: alice.id) == nil)
    }

    @Test("--force past a revocation that fails deletes the account and says the token is still valid")
    func forcedPastRevocation() async throws {
        let server = try FakeGitbayServer()
        let world = try await ReconcileWorld()
        let (alice, token) = try await world.signInMinted(server, "alice", name: "gitbay-sync-laptop-gbs-cccccc")
        server.inject(Self.revokeFailure, command: "token revoke", times: 10)
        let result = try await world.remove(alice, force: true)
        guard case .forced(_, _, .revocationFailed, _, .notRevoked(name: "gitbay-sync-laptop-gbs-cccccc")) = result else {
            Issue.record("--force deletes past a failed revocation, not \(result)")
            return
        }
        #expect(try await world.store.account(id: alice.id) == nil)
        #expect(server.accepts(token))
    }

    @Test("--force with the server down sends nothing more and names the token left valid")
    func forcedWithServerDown() async throws {
        let server = try FakeGitbayServer()
        let world = try await ReconcileWorld()
        let (alice, token) = try await world.signInMinted(server, "alice", name: "gitbay-sync-laptop-gbs-dddddd")
        server.isDown = true
        let result = try await world.remove(alice, force: true)
        guard case .forced(_, _, .deregistrationFailed, _, .notRevoked(name: "gitbay-sync-laptop-gbs-dddddd")) = result else {
            Issue.record("--force deletes, the token not revoked, not \(result)")
            return
        }
        server.isDown = false
        #expect(server.accepts(token))
    }

    @Test("a crash after the revocation went through, before the deletion: the next run finishes the removal")
    func crashAfterRevocation() async throws {
        let server = try FakeGitbayServer()
        let world = try await ReconcileWorld()
        let (alice, token) = try await world.signInMinted(server, "alice", name: "gitbay-sync-laptop-gbs-eeeeee")
        try await world.setToken()
        _ = try await world.run()
        // The list, the row's removal, then the revocation, whose answer is lost.
        let crashing = TokenRotationTests.crashingClient(server, at: 3, afterServerApplied: true)
        let removal = AccountRemoval(
            reconciler: world.reconciler(honourBackoff: false, client: crashing), step: NoPreRemovalStep(), shutdown: ShutdownSignal())
        guard case .kept(_, .revocationFailed) = try await world.remove(alice, removal: removal) else {
            Issue.record("a lost answer to the revocation keeps the account")
            return
        }
        #expect(!server.accepts(token))
        #expect(try await world.store.account(id: alice.id)?.state == .removing)

        let entries = try await world.engine().run()
        // Refused, not revoked: whether the lost answer or an expiry ended it, it no longer works.
        guard case .removed(_, _, TokenRevocation(.refused(name: "gitbay-sync-laptop-gbs-eeeeee"))) = try #require(entries.first?.removal) else {
            Issue.record("the next run ends the removal whose token is refused after its step passed: \(entries)")
            return
        }
        #expect(entries.first?.removal?.outcome.isFailure == false, "the run reports the removal, not the refusal")
        #expect(try await world.store.account(id: alice.id) == nil)
    }

    @Test("a run that finds a removing account recorded as refused after its step passed leaves its pass out and still finishes its removal")
    func refusedAfterStepFinishedUnpassed() async throws {
        let server = try FakeGitbayServer()
        let world = try await ReconcileWorld()
        let (alice, token) = try await world.signInMinted(server, "alice", name: "gitbay-sync-laptop-gbs-gggggg")
        try await world.setToken()
        _ = try await world.run()
        // A removal whose revocation went through, then a crash once the refusal was recorded
        // and before the deletion: the next run sends nothing with the refused token for its pass.
        try await world.store.setState(.removing, ofAccount: alice.id)
        let removing = try #require(try await world.store.account(id: alice.id))
        try await world.store.markRemovalStepPassed(ofAccount: alice.id, removalStartedAt: removing.removalStartedAt)
        server.revokeToken(token)
        var status = try await world.store.status(ofAccount: alice.id)
        status.condition = .authFailed
        try await world.store.saveStatus(status, ofAccount: alice.id)
        let before = server.requests().count

        let entries = try await world.engine().run()

        guard case .removed(_, _, TokenRevocation(.refused(name: "gitbay-sync-laptop-gbs-gggggg"))) = try #require(entries.first?.removal) else {
            Issue.record("the removal of an account the run left alone is finished in the same run: \(entries)")
            return
        }
        #expect(!server.accepts(token))
        #expect(try await world.store.account(id: alice.id) == nil)
        #expect(!server.requests().dropFirst(before).contains { $0.argv.starts(with: ["notifications"]) }, "no pass with the refused token")
    }

    @Test(
        "a stop while `token revoke` hangs cancels it at once and keeps the account removing with its token, --force or not",
        arguments: [false, true])
    func stopCutsRevocation(force: Bool) async throws {
        let server = try FakeGitbayServer()
        let world = try await ReconcileWorld()
        let (alice, token) = try await world.signInMinted(server, "alice", name: "gitbay-sync-laptop-gbs-ffffff")
        try await world.setToken()
        _ = try await world.run()
        server.inject(.hang, command: "token revoke", times: 10)
        // Far longer than the stop takes: a revocation the stop does not cancel runs into it.
        var client = ReconcileWorld.client
        (client.transport.requestTimeout, client.deadline) = (.seconds(15), .seconds(15))
        let shutdown = ShutdownSignal()
        shutdown.claim()
        var options = Reconciler.Options(honourBackoff: false, client: client)
        options.stopNow = { await shutdown.wait(for: .stopping) }
        let removal = AccountRemoval(
            reconciler: Reconciler(store: world.store, options: options, logger: .disabled), step: NoPreRemovalStep(), shutdown: shutdown)
        let stopper = Task {
            while !server.requests().contains(where: { $0.argv.starts(with: ["token", "revoke"]) }) { try await Task.sleep(for: .milliseconds(5)) }
            shutdown.request()
        }
        let result = try await world.remove(alice, force: force, removal: removal)
        try await stopper.value
        guard case .kept(let outcome, let hold) = result, case .revocationFailed("gitbay-sync-laptop-gbs-ffffff", let failure) = hold else {
            Issue.record("a stop during the revocation keeps the account, not \(result)")
            return
        }
        #expect(hold.revocationInterrupted)
        #expect(failure.server?.command == ["token", "revoke"] && failure.isStop, "cancelled, not timed out: \(failure)")
        #expect(outcome.failure == failure)
        #expect(try await world.store.account(id: alice.id)?.state == .removing)
        #expect(try await world.store.apiToken(ofAccount: alice.id) == Secret(token))
        #expect(try await world.store.status(ofAccount: alice.id).detail == AccountRemoval.revocationInterruptedDetail)
        #expect(server.accepts(token))
        #expect(server.devices(of: "alice").isEmpty)
    }
}
