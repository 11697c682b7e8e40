import Foundation
import GitbayFake
import ReconcileSupport
import TestSupport
import Testing

@testable import GitbayAPI
@testable import GitbayReconcile
@testable import GitbayState
@testable import GitbaySupport

/// 9. Removing an account, driven through `AccountRemoval` with typed results.
@Suite("Removing an account")
struct RemovalTests {
    @Test("9. deregisters first, then deletes the token and records, and the token's bytes leave the file")
    func removal() async throws {
        let server = try FakeGitbayServer()
        let world = try await ReconcileWorld()
        let apiToken = server.mintToken(for: "alice")
        let alice = try await world.registeredAlice(on: server, apiToken: apiToken)
        server.resetRequests()
        guard case .removed(let outcome, _, _) = try await world.remove(alice) else {
            Issue.record("a removal with the server up and no hook completes")
            return
        }
        #expect(outcome.action == .removed)
        // The list and the removal: no list confirms a removal no later run lists again.
        #expect(server.requests().count == 2)
        #expect(server.devices(of: "alice").isEmpty)
        #expect(try await world.store.accounts().isEmpty)
        #expect(try await world.store.allRegistrations().isEmpty)
        for suffix in ["", "-wal"] {
            let bytes = FileManager.default.contents(atPath: world.folder.databasePath + suffix) ?? Data()
            #expect(bytes.range(of: Data(apiToken.utf8)) == nil, "the API token is still in state.db\(suffix)")
        }
    }

    @Test("an unreachable server keeps the account removing with its token; runs wait out the backoff, then deregister")
    func unreachableThenBack() async throws {
        let server = try FakeGitbayServer()
        let world = try await ReconcileWorld()
        let alice = try await world.registeredAlice(on: server)
        server.isDown = true
        guard case .kept(let outcome, let hold) = try await world.remove(alice) else {
            Issue.record("a removal that cannot deregister is kept")
            return
        }
        #expect(!hold.deregistered)
        #expect(outcome.condition == .removing && outcome.isFailure)
        // The connection's failure, as a value, is both the hold's and the outcome's.
        guard case .deregistrationFailed(let failure) = hold, case .transport? = failure.server?.kind else {
            Issue.record("the hold carries the server's failure, not \(hold)")
            return
        }
        #expect(outcome.failure == failure)
        #expect(try await world.store.account(id: alice.id)?.state == .removing)
        #expect(try await world.store.apiToken(ofAccount: alice.id) != nil)
        #expect(server.devices(of: "alice").count == 1)

        // Still down, and the failure's backoff not over: a run leaves it alone and says until when.
        let waiting = try #require(try await world.run()[alice.name])
        #expect(waiting.action == .skipped && !waiting.isFailure)
        #expect(waiting.skipReason == .backingOff)
        #expect(waiting.nextRetryAt != nil)
        // --now retries at once, and fails.
        #expect(try await world.run(honourBackoff: false)[alice.name]?.action == .failed)

        // Back, once the backoff is over: the next run deregisters, and the removal completes.
        server.isDown = false
        let later: @Sendable () -> Date = { Date().addingTimeInterval(3600) }
        let done = try #require(try await world.run(now: later)[alice.name])
        #expect(done.action == .removed && done.condition == .removing)
        #expect(server.devices(of: "alice").isEmpty)
        let removing = try #require(try await world.store.account(id: alice.id))
        guard case .removed = try await world.removal().complete(removing, after: done, force: false) else {
            Issue.record("a removal whose deregistration went through completes")
            return
        }
        #expect(try await world.store.account(id: alice.id) == nil)
    }

    @Test("--force deletes now and names the rows left on the server")
    func force() async throws {
        let server = try FakeGitbayServer()
        let world = try await ReconcileWorld()
        let alice = try await world.registeredAlice(on: server)
        let id = try #require(server.devices(of: "alice").first?.id)
        server.isDown = true
        guard case .forced(let outcome, let rowsLeft, let hold, _, _) = try await world.remove(alice, force: true) else {
            Issue.record("--force deletes the account")
            return
        }
        let deregistered = hold.deregistered
        #expect(rowsLeft == [id])
        #expect(!deregistered)
        #expect(outcome.action == .removed)
        #expect(try await world.store.account(id: alice.id) == nil)
    }

    @Test("a failing pre-removal step keeps the account removing with its token, the deregistration standing")
    func failingStep() async throws {
        struct Refusal: Error, CustomStringConvertible {
            var description: String { "the app's Keychain item could not be cleared" }
        }
        struct FailingStep: PreRemovalStep {
            func run(for account: AccountRecord, shutdown: ShutdownSignal) async throws { throw Refusal() }
        }
        let server = try FakeGitbayServer()
        let world = try await ReconcileWorld()
        let alice = try await world.registeredAlice(on: server)
        guard case .kept(let outcome, let hold) = try await world.remove(alice, removal: world.removal(step: FailingStep())) else {
            Issue.record("a failing step keeps the account")
            return
        }
        #expect(hold == .stepFailed("the app's Keychain item could not be cleared") && hold.deregistered)
        // The outcome carries the step's failure as a value, in the step's own words.
        #expect(outcome.failure == .local(.removalStep("the app's Keychain item could not be cleared")))
        #expect(server.devices(of: "alice").isEmpty)
        #expect(try await world.store.apiToken(ofAccount: alice.id) != nil)
    }

    @Test("a step interrupted by a stop request leaves the removal to a later run, whatever --force says")
    func interruptedStep() async throws {
        struct Stopped: PreRemovalInterruption {}
        struct StoppedStep: PreRemovalStep {
            func run(for account: AccountRecord, shutdown: ShutdownSignal) async throws { throw Stopped() }
        }
        let server = try FakeGitbayServer()
        let world = try await ReconcileWorld()
        let alice = try await world.registeredAlice(on: server)
        guard case .interrupted = try await world.remove(alice, force: true, removal: world.removal(step: StoppedStep())) else {
            Issue.record("an interrupted step is an interruption, --force or not")
            return
        }
        #expect(try await world.store.account(id: alice.id)?.state == .removing)
    }
}
