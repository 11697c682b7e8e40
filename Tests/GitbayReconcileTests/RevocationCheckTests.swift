import Foundation
import GitbayFake
import ReconcileSupport
import TestSupport
import Testing

@testable import GitbayAPI
@testable import GitbayReconcile
@testable import GitbayState
@testable import GitbaySupport

/// 9. A token is called revoked only once the token itself is refused, and every token this
/// install minted for the account is revoked or named as left.
@Suite("Checking a revocation at sign-out")
struct RevocationCheckTests {
    static func url(_ server: FakeGitbayServer) throws -> InstanceURL { try InstanceURL(parsing: server.baseURL) }

    /// Alice signed in with a token the server knows as `realName`, recorded under `recorded`.
    static func signedIn(_ world: ReconcileWorld, _ server: FakeGitbayServer, realName: String?, recorded: String?) async throws
        -> (AccountRecord, String)
    {
        let token = server.mintToken(for: "alice", name: realName)
        let alice = try await world.store.signIn(
            instance: url(server), username: "alice", apiToken: Secret(token), details: APITokenDetails(name: recorded))
        return (alice, token)
    }

    @Test("a wrong --token-name revokes another token; the one held still works, so the account is kept with it")
    func wrongNameKept() async throws {
        let server = try FakeGitbayServer()
        let world = try await ReconcileWorld()
        let other = server.mintToken(for: "alice", name: "desk-sync")
        let (alice, token) = try await Self.signedIn(world, server, realName: "laptop-sync", recorded: "desk-sync")
        let result = try await world.remove(alice)
        guard case .kept(let outcome, .tokenStillValid(name: "desk-sync", nameKnown: true)) = result else {
            Issue.record("a token that still works keeps the removal, not \(result)")
            return
        }
        #expect(outcome.condition == .removing)
        #expect(!server.accepts(other))
        #expect(server.accepts(token))
        #expect(server.requests().last?.argv == ["whoami"])
        #expect(try await world.store.account(id: alice.id)?.state == .removing)
        #expect(try await world.store.apiToken(ofAccount: alice.id) == Secret(token))
        #expect(try await world.store.status(ofAccount: alice.id).detail == AccountRemoval.tokenStillValidDetail)

        let forced = try await world.remove(alice, force: true)
        guard case .forced(_, _, .tokenStillValid, _, let revocation) = forced else {
            Issue.record("--force deletes a token that still works, not \(forced)")
            return
        }
        #expect(revocation.current == .stillValid(name: "desk-sync", nameKnown: false))
        #expect(!revocation.isRevoked)
        #expect(try await world.store.account(id: alice.id) == nil)
        #expect(server.accepts(token))
    }

    @Test("a 404 for the name is no revocation when the token still works")
    func unknownNameStillWorks() async throws {
        let server = try FakeGitbayServer()
        let world = try await ReconcileWorld()
        let (alice, token) = try await Self.signedIn(world, server, realName: nil, recorded: "revoked-by-hand")
        let result = try await world.remove(alice)
        guard case .kept(_, .tokenStillValid(name: "revoked-by-hand", nameKnown: false)) = result else {
            Issue.record("a name the server does not know, with the token working, keeps the removal, not \(result)")
            return
        }
        #expect(server.accepts(token))
        #expect(try await world.store.account(id: alice.id)?.state == .removing)
    }

    @Test("a 200 to the revocation that did not take keeps the account and its token")
    func answerThatDidNotTake() async throws {
        let server = try FakeGitbayServer()
        let world = try await ReconcileWorld()
        let (alice, token) = try await world.signInMinted(server, "alice", name: "gitbay-sync-laptop-gbs-aaaaaa")
        server.inject(
            .status(200, body: #"{"protocol_version":1,"data":{"revoked":"gitbay-sync-laptop-gbs-aaaaaa"},"exit_code":0}"#),
            command: "token revoke")
        let result = try await world.remove(alice)
        guard case .kept(_, .tokenStillValid(name: "gitbay-sync-laptop-gbs-aaaaaa", nameKnown: true)) = result else {
            Issue.record("a revocation that did not take keeps the removal, not \(result)")
            return
        }
        #expect(server.accepts(token))
        #expect(try await world.store.apiToken(ofAccount: alice.id) == Secret(token))

        // The next try revokes it for real, and checks.
        let entries = try await world.engine().run()
        guard case .removed(_, _, .revoked(name: "gitbay-sync-laptop-gbs-aaaaaa")) = try #require(entries.first?.removal) else {
            Issue.record("the next run revokes and checks: \(entries)")
            return
        }
        #expect(!server.accepts(token))
    }

    @Test("a pasted token without a name: the stale tokens this install minted are revoked all the same")
    func unnamedCurrentRevokesStale() async throws {
        let server = try FakeGitbayServer()
        let world = try await ReconcileWorld()
        let stale = server.mintToken(for: "alice", name: "gitbay-sync-laptop-gbs-000001")
        let (alice, token) = try await Self.signedIn(world, server, realName: nil, recorded: nil)
        try await world.store.recordStaleTokenNames(["gitbay-sync-laptop-gbs-000001"], ofAccount: alice.id)
        let result = try await world.remove(alice)
        guard case .removed(_, _, let revocation) = result else {
            Issue.record("the removal completes, not \(result)")
            return
        }
        #expect(revocation == .unnamed)
        #expect(!server.accepts(stale))
        #expect(server.accepts(token))
    }

    @Test("a current token refused first: the stale tokens not revoked are named as left, and the refused one is not called valid")
    func refusedCurrentNamesStaleLeft() async throws {
        let server = try FakeGitbayServer()
        let world = try await ReconcileWorld()
        // A rotation killed after its mint: the successor's name recorded, the predecessor still current.
        let (alice, token) = try await world.signInMinted(server, "alice", name: "gitbay-sync-laptop-gbs-000001")
        let successor = server.mintToken(for: "alice", name: "gitbay-sync-laptop-gbs-000002")
        try await world.store.recordStaleTokenNames(["gitbay-sync-laptop-gbs-000002"], ofAccount: alice.id)
        server.revokeToken(token)
        let result = try await world.remove(alice, force: true)
        guard case .forced(_, _, _, _, let revocation) = result else {
            Issue.record("--force deletes, not \(result)")
            return
        }
        #expect(revocation.current == .refused(name: "gitbay-sync-laptop-gbs-000001"))
        #expect(revocation.staleLeft == ["gitbay-sync-laptop-gbs-000002"])
        #expect(server.accepts(successor))
    }

    @Test("the token refused on the first stale revocation: the rest are left, not reported revoked")
    func refusalMidwayLeavesTheRest() async throws {
        let server = try FakeGitbayServer()
        let world = try await ReconcileWorld()
        let (alice, token) = try await world.signInMinted(server, "alice", name: "gitbay-sync-laptop-gbs-000001")
        let successor = server.mintToken(for: "alice", name: "gitbay-sync-laptop-gbs-000002")
        try await world.store.recordStaleTokenNames(["gitbay-sync-laptop-gbs-000002"], ofAccount: alice.id)
        try await world.store.setState(.removing, ofAccount: alice.id)
        let removing = try #require(try await world.store.account(id: alice.id))
        // The deregistration went through (nothing to remove); the token dies before the revocations.
        let outcome = AccountOutcome(alice, action: .unchanged, condition: .removing)
        server.revokeToken(token)
        let result = try await world.removal().complete(removing, after: outcome, force: false)
        guard case .removed(_, _, let revocation) = result else {
            Issue.record("a refused token ends the removal, not \(result)")
            return
        }
        #expect(revocation.current == .refused(name: "gitbay-sync-laptop-gbs-000001"))
        #expect(revocation.staleLeft == ["gitbay-sync-laptop-gbs-000002"])
        #expect(server.accepts(successor))
    }
}
