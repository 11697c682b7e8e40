import Foundation
import GitbayFake
import ReconcileSupport
import TestSupport
import Testing

@testable import GitbayAPI
@testable import GitbayReconcile
@testable import GitbayState
@testable import GitbaySupport

/// The ways the token display once misled gitbay-sync, each replayed through `Reconciler`
/// against the fake server: rows are this device's by record or marker, never by what the
/// display shows.
@Suite("Row identity, end to end")
struct RowIdentityTests {
    @Test("5. a rotation between tokens sharing their first 8 bytes leaves one row, of the new token, and then writes nothing")
    func rotationSharingPrefix() async throws {
        let server = try FakeGitbayServer()
        let world = try await ReconcileWorld()
        let alice = try await world.signIn(server, "alice")
        try await world.setToken("https://push.example.org/up/AAAA1")
        _ = try await world.run()
        try await world.setToken("https://push.example.org/up/BBBB2", label: nil)
        let rotated = try #require(try await world.run()[alice.name])
        #expect(rotated.action == .rotated)
        #expect(server.devices().map(\.token) == ["https://push.example.org/up/BBBB2"])
        #expect(rotated.deviceID == server.devices().first?.id)
        server.resetRequests()
        #expect(try await world.run()[alice.name]?.action == .unchanged)
        #expect(!server.requests().contains { $0.isWrite })
    }

    @Test("4. another device's row under a reused id survives pause, device clear and removal, and is never called ours")
    func reusedIDWithShortToken() async throws {
        let server = try FakeGitbayServer()
        let world = try await ReconcileWorld()
        let alice = try await world.registeredAlice(on: server)
        let ours = try #require(server.devices().first)
        // APNs reaps our row; the tablet registers a short token and gets the same id.
        server.deleteDevice(id: ours.id)
        let tablet = server.insertDevice(owner: "alice", token: "tab", label: "tablet")
        #expect(tablet == ours.id)

        let client = try await GitbayClient.forAccount(
            alice, in: APITokens(store: world.store, keyring: nil), configuration: ReconcileWorld.client, logger: .disabled)
        guard case .list(let rows, _) = try await client.listDevices(ifNoneMatch: nil) else {
            Issue.record("a list without a tag is answered in full")
            return
        }
        let ownership = RowOwnership(
            device: try await world.store.device(), records: try await world.store.registrations(ofAccount: alice.id), rows: rows
        )
        #expect(rows.map { ownership.kind(of: $0) } == [.notOurs])
        #expect(ownership.heldRow == .undecided([]))

        _ = try await world.change(alice, to: .paused)
        _ = try await world.change(alice, to: .active)
        try await world.store.clearDeviceToken()
        _ = try await world.run()
        try await world.setToken()
        _ = try await world.run()
        guard case .removed = try await world.remove(alice) else {
            Issue.record("the removal completes")
            return
        }
        #expect(server.devices().map(\.token) == ["tab"])
        #expect(!server.requests().contains { $0.argv.starts(with: ["notifications", "device", "remove", String(tablet)]) })
    }

    @Test("1, 9. v1.32.0 with an 8-byte token: settles with no writes, and sign-out leaves no row")
    func eightByteTokenOnOldServer() async throws {
        let server = try FakeGitbayServer()
        server.returnsDeviceID = false
        let world = try await ReconcileWorld()
        let alice = try await world.signIn(server, "alice")
        try await world.setToken("DEVTOKEN")
        let first = try #require(try await world.run()[alice.name])
        #expect(first.condition == .registered)
        #expect(first.deviceID == server.devices().first?.id)
        server.resetRequests()
        #expect(try await world.run()[alice.name]?.isFailure == false)
        #expect(!server.requests().contains { $0.isWrite })
        guard case .removed = try await world.remove(alice) else {
            Issue.record("the removal completes")
            return
        }
        #expect(server.devices().isEmpty)
    }

    @Test("3, 7. two accounts of one instance settle on one holder with no writes, also after the holder's row is reaped", arguments: [true, false])
    func oneHolderAfterReap(returnsID: Bool) async throws {
        let server = try FakeGitbayServer()
        server.returnsDeviceID = returnsID
        let world = try await ReconcileWorld()
        let alice = try await world.signIn(server, "alice")
        let bob = try await world.signIn(server, "bob")
        try await world.setToken()
        _ = try await world.run()
        server.resetRequests()
        _ = try await world.run()
        #expect(!server.requests().contains { $0.isWrite })

        server.deleteDevice(id: try #require(server.devices().first?.id))
        server.resetRequests()
        let healed = try await world.run()
        #expect(healed[alice.name]?.action == .reAdded)
        #expect(healed[bob.name]?.condition == .shadowed)
        #expect(server.requests().filter(\.isWrite).map(\.user) == ["alice"])
        #expect(server.devices().map(\.owner) == ["alice"])
        for _ in 0..<2 {
            server.resetRequests()
            let steady = try await world.run()
            #expect(!steady.values.contains { $0.isFailure })
            #expect(!server.requests().contains { $0.isWrite })
        }
    }
}
