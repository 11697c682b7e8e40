import Foundation
import GitbayFake
import ReconcileSupport
import TestSupport
import Testing
import TransportSupport

@testable import GitbayAPI
@testable import GitbayReconcile
@testable import GitbayState
@testable import GitbaySupport

/// How one account's failure is classified, and that it never holds the others back.
struct FailureCase: Sendable, CustomTestStringConvertible {
    let name: String
    let condition: AccountCondition
    let retries: Bool
    /// Breaks the server for bob, whose API token is given.
    let breakServer: @Sendable (FakeGitbayServer, String) -> Void

    var testDescription: String { name }
}

@Suite("Failures stay with their account")
struct FailureIsolationTests {
    static let cases: [FailureCase] = [
        FailureCase(name: "token revoked (401)", condition: .authFailed, retries: false) { server, token in
            server.revokeToken(token)
        },
        FailureCase(name: "read-only token (403)", condition: .denied, retries: true) { server, _ in
            server.inject(
                .status(403, body: #"{"protocol_version":1,"error":"this token is read-only; mint one with --scope full","exit_code":4}"#),
                command: "notifications device", user: "bob", times: 10)
        },
        FailureCase(name: "push disabled on the instance (500)", condition: .pushDisabled, retries: true) { server, _ in
            server.pushEnabled = false
        },
        FailureCase(name: "bad gateway (502, HTML)", condition: .error, retries: true) { server, _ in
            server.inject(.status(502, body: "<html>bad gateway</html>"), command: "notifications device", user: "bob", times: 10)
        },
        FailureCase(name: "garbage body", condition: .error, retries: true) { server, _ in
            server.inject(.garbage, command: "notifications device", user: "bob", times: 10)
        },
        FailureCase(name: "hung server", condition: .error, retries: true) { server, _ in
            server.inject(.hang, command: "notifications device", user: "bob", times: 10)
        },
    ]

    static let fast = ClientConfiguration(
        transport: TransportConfiguration(connectTimeout: .seconds(1), requestTimeout: .milliseconds(400), maxResponseBytes: 1 << 20),
        retry: .never, http: ServerTransport.shared
    )

    @Test("one failing account is classified and recorded; the others are registered", arguments: cases)
    func isolation(_ failure: FailureCase) async throws {
        let healthy = try FakeGitbayServer()
        let broken = try FakeGitbayServer()
        let world = try await ReconcileWorld()
        let alice = try await world.signIn(healthy, "alice")
        let bobToken = broken.mintToken(for: "bob")
        let bob = try await world.signIn(broken, "bob", apiToken: bobToken)
        try await world.setToken()
        failure.breakServer(broken, bobToken)

        let outcomes = try await world.run(client: Self.fast)
        #expect(outcomes[alice.name]?.action == .added)
        #expect(outcomes[alice.name]?.isFailure == false)
        let failed = try #require(outcomes[bob.name])
        #expect(failed.action == .failed && failed.isFailure)
        #expect(failed.condition == failure.condition)
        #expect(failed.failure?.server?.account == bob.name, "\(String(describing: failed.failure))")
        #expect((failed.nextRetryAt != nil) == failure.retries)
        #expect(healthy.devices(of: "alice").count == 1)

        let status = try await world.store.status(ofAccount: bob.id)
        #expect(status.condition == failure.condition)
        #expect(status.failures == 1)
        #expect(status.lastError != nil)
        #expect((status.nextRetryAt != nil) == failure.retries)
        #expect(status.listETag == nil && status.etagBasis == nil)
    }

    @Test("a hung server delays no add on another: a row reaped there is added again within that account's own deadline")
    func hungServerDelaysNoAdd() async throws {
        let (hung, healthy) = (try FakeGitbayServer(), try FakeGitbayServer())
        let world = try await ReconcileWorld()
        let ann = try await world.signIn(hung, "ann")
        let ben = try await world.signIn(healthy, "ben")
        try await world.setToken()
        let first = try await world.run()
        #expect(first.values.allSatisfy { $0.action == .added && !$0.isFailure }, "\(first)")
        // ann's server now takes connections and never answers; ben's row is reaped.
        healthy.deleteDevice(id: try #require(healthy.devices(of: "ben").first?.id))
        hung.inject(.hang, command: "notifications device", times: 10)
        // A request may wait 10 s, every account's requests 5 s in all: were ben's add to wait
        // on anything of ann's server, its own deadline would be over before it was sent.
        var client = Self.fast
        client.transport.requestTimeout = .seconds(10)
        client.deadline = .seconds(5)

        let outcomes = try await world.run(client: client)
        let added = try #require(outcomes[ben.name])
        #expect(added.action == .reAdded && !added.isFailure, "\(added)")
        #expect(healthy.devices(of: "ben").count == 1)
        #expect(outcomes[ann.name]?.isFailure == true, "\(outcomes)")
        #expect(try await world.store.status(ofAccount: ben.id).condition == .registered)
    }

    @Test("an account whose token failed is not called again until it signs in again")
    func authFailedIsSkipped() async throws {
        let server = try FakeGitbayServer()
        let world = try await ReconcileWorld()
        let token = server.mintToken(for: "alice")
        let alice = try await world.signIn(server, "alice", apiToken: token)
        try await world.setToken()
        server.revokeToken(token)
        #expect(try await world.run()[alice.name]?.condition == .authFailed)
        server.resetRequests()
        for honourBackoff in [true, false] {
            let again = try #require(try await world.run(honourBackoff: honourBackoff)[alice.name])
            #expect(again.action == .skipped && again.condition == .authFailed && again.isFailure)
            #expect(again.skipReason == .tokenRefused && again.instance.description == server.baseURL)
        }
        #expect(server.requests().isEmpty)
        #expect(try await world.signIn(server, "alice").id == alice.id)
        #expect(try await world.run()[alice.name]?.condition == .registered)
        #expect(server.devices(of: "alice").count == 1)
    }

    @Test("an account whose API token is missing from the database fails as auth-failed and names the fix")
    func missingToken() async throws {
        let server = try FakeGitbayServer()
        let world = try await ReconcileWorld()
        let alice = try await world.signIn(server, "alice")
        try await world.setToken()
        do {
            let database = try Database(path: world.folder.databasePath)
            try database.execute("DELETE FROM api_tokens")
        }
        server.resetRequests()
        let outcome = try #require(try await world.run()[alice.name])
        #expect(outcome.action == .failed && outcome.isFailure)
        #expect(outcome.condition == .authFailed)
        #expect(outcome.failure?.server?.kind == .authFailed && outcome.failure?.server?.serverMessage == "no API token is stored for it")
        #expect(outcome.instance.description == server.baseURL)
        #expect(server.requests().isEmpty)
    }

    @Test("a run cancelled on purpose records no failure: no backoff, the last condition kept")
    func cancelIsNotAFailure() async throws {
        let server = try FakeGitbayServer()
        let world = try await ReconcileWorld()
        let alice = try await world.signIn(server, "alice")
        try await world.setToken()
        _ = try await world.run()
        var cancelling = ReconcileWorld.client
        cancelling.http = GatedTransport(cancelling.http, mayStart: { false }, mayFinish: { true })
        let outcome = try #require(try await world.run(client: cancelling)[alice.name])
        #expect(outcome.action == .failed)
        #expect(outcome.condition == .registered)
        let status = try await world.store.status(ofAccount: alice.id)
        #expect(status.condition == .registered)
        #expect(status.failures == 0)
        #expect(status.nextRetryAt == nil)
        #expect(status.lastError == nil)
    }

    @Test("an account another process is reconciling is left to it; its removal is too, and a later run finishes it")
    func leasedElsewhere() async throws {
        let server = try FakeGitbayServer()
        let world = try await ReconcileWorld()
        let alice = try await world.signIn(server, "alice")
        try await world.setToken()
        _ = try await world.run()
        let other = LeaseHolder.new()
        #expect(try await world.store.takeLeases([alice.id], holder: other).taken == [alice.id])
        server.resetRequests()

        let skipped = try #require(try await world.run()[alice.name])
        #expect(skipped.action == .skipped && !skipped.isFailure)
        #expect(skipped.condition == .registered)
        guard case .heldElsewhere(getpid(), _)? = skipped.skipReason else {
            Issue.record("skipped for \(String(describing: skipped.skipReason)), not for the other process's lease")
            return
        }

        guard case .busy(_, let pid) = try await world.remove(alice) else {
            Issue.record("a removal of a leased account is left to the lease's holder")
            return
        }
        #expect(pid == getpid())
        #expect(try await world.store.account(id: alice.id)?.state == .removing)
        #expect(try await world.store.apiToken(ofAccount: alice.id) != nil)
        #expect(server.requests().isEmpty)

        try await world.store.releaseLeases([alice.id], holder: other)
        let finished = try await world.reconciler().reconcile()
        #expect(finished.map(\.condition) == [.removing])
        #expect(server.devices().isEmpty)
    }
}
