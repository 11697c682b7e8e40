import Foundation
import GitbayFake
import ReconcileSupport
import TestSupport
import Testing

@testable import GitbayAPI
@testable import GitbayReconcile
@testable import GitbayState
@testable import GitbaySupport

/// The behaviours DESIGN.md asks of a run, each driven through `Reconciler` against fake
/// servers over real HTTP, with typed outcomes.
@Suite("Reconciler against fake servers")
struct ReconcilerTests {
    static let token = ReconcileWorld.token
    static let rotated = ReconcileWorld.rotated

    @Test("1, 2. a first run registers every account once with the label; the next makes one request each and no write")
    func firstThenSteady() async throws {
        let servers = [try FakeGitbayServer(), try FakeGitbayServer()]
        let world = try await ReconcileWorld()
        for (server, user) in zip(servers, ["alice", "carol"]) { try await world.signIn(server, user) }
        try await world.setToken()
        let first = try await world.run()
        for (server, user) in zip(servers, ["alice", "carol"]) {
            let rows = server.devices(of: user)
            #expect(rows.count == 1)
            #expect(rows.first?.token == Self.token)
            #expect(rows.first?.label.hasPrefix("laptop [gbs-") == true)
            let outcome = try #require(first["\(user)@127.0.0.1:\(server.port)"])
            #expect(outcome.action == .added && outcome.condition == .registered && outcome.deviceID == rows.first?.id)
        }
        #expect(first.count == 2)

        servers.forEach { $0.resetRequests() }
        let second = try await world.run()
        for server in servers {
            let requests = server.requests()
            #expect(requests.count == 1)
            #expect(requests.first?.status == 304)
            #expect(!requests.contains { $0.isWrite })
        }
        #expect(second.values.allSatisfy { $0.action == .unchanged && $0.requests == 1 && $0.writes == 0 && $0.condition == .registered })
        #expect(second.values.allSatisfy { $0.deviceID != nil })
    }

    @Test("3. a row the server deleted comes back on the next run")
    func healsDeletedRow() async throws {
        let server = try FakeGitbayServer()
        let world = try await ReconcileWorld()
        let alice = try await world.signIn(server, "alice")
        try await world.setToken()
        _ = try await world.run()
        server.deleteDevice(id: try #require(server.devices(of: "alice").first?.id))
        let outcome = try #require(try await world.run()[alice.name])
        #expect(outcome.action == .reAdded)
        #expect(outcome.condition == .registered)
        #expect(server.devices(of: "alice").map(\.token) == [Self.token])
    }

    @Test("5. a rotation adds the new token before removing the old one, leaving exactly one row")
    func rotation() async throws {
        let server = try FakeGitbayServer()
        let world = try await ReconcileWorld()
        let alice = try await world.signIn(server, "alice")
        try await world.setToken()
        _ = try await world.run()
        try await world.setToken(Self.rotated, label: nil)
        server.resetRequests()
        let outcome = try #require(try await world.run()[alice.name])
        #expect(outcome.action == .rotated)
        #expect(outcome.writes == 2)
        let writes = server.requests().filter(\.isWrite).map { $0.argv.prefix(3).joined(separator: " ") }
        #expect(writes == ["notifications device add", "notifications device remove"])
        #expect(server.devices(of: "alice").map(\.token) == [Self.rotated])
        #expect(outcome.deviceID == server.devices(of: "alice").first?.id)
    }

    @Test("4. another device's rows stay, even when our recorded id now names one of them")
    func neverRemovesForeignRows() async throws {
        let server = try FakeGitbayServer()
        let world = try await ReconcileWorld()
        let alice = try await world.signIn(server, "alice")
        try await world.setToken()
        server.insertDevice(owner: "alice", token: "0123456789abcdef-phone", label: "phone")
        _ = try await world.run()
        let ours = try #require(server.devices(of: "alice").first { $0.token == Self.token })
        // The server drops our row; the id goes to another device (ids are reused).
        server.deleteDevice(id: ours.id)
        let reused = server.insertDevice(owner: "alice", token: "fedcba9876543210-tablet", label: "tablet")
        #expect(reused == ours.id)
        server.resetRequests()
        let outcome = try #require(try await world.run()[alice.name])
        #expect(!outcome.isFailure)
        #expect(outcome.action == .reAdded)
        let tokens = Set(server.devices(of: "alice").map(\.token))
        #expect(tokens == ["0123456789abcdef-phone", "fedcba9876543210-tablet", Self.token])
        #expect(!server.requests().contains { $0.argv.starts(with: ["notifications", "device", "remove"]) })
    }

    @Test("7. two accounts on an instance that keeps one row per token: one holds it, the other is shadowed, then no writes")
    func sharedInstance() async throws {
        let server = try FakeGitbayServer()
        let world = try await ReconcileWorld()
        let alice = try await world.signIn(server, "alice")
        let bob = try await world.signIn(server, "bob")
        try await world.setToken()
        let first = try await world.run()
        #expect(first[alice.name]?.condition == .registered)
        #expect(first[bob.name]?.condition == .shadowed)
        #expect(first[bob.name]?.action == .shadowed)
        #expect(first[bob.name]?.shadowedBy == alice.name)
        #expect(server.devices().map(\.owner) == ["alice"])

        for _ in 0..<2 {
            server.resetRequests()
            let steady = try await world.run()
            #expect(!steady.values.contains { $0.isFailure })
            #expect(!server.requests().contains { $0.isWrite })
            #expect(server.requests().count == 2)
        }
        #expect(try await world.store.status(ofAccount: bob.id).detail == "the device token is held by \(alice.name) on this instance")

        // The user moves the token to bob: one handover (bob's add moves the row), then steady again.
        let moved = try #require(server.devices().first?.id)
        server.resetRequests()
        try await world.store.prefer(accountID: bob.id, on: bob.instance)
        let handover = try await world.run(only: [alice, bob], honourBackoff: false)
        #expect(handover[bob.name]?.condition == .registered && handover[alice.name]?.shadowedBy == bob.name)
        #expect(server.devices().map(\.owner) == ["bob"])
        #expect(server.devices().map(\.id) == [moved])
        #expect(server.requests().filter(\.isWrite).map(\.user) == ["bob"])
        server.resetRequests()
        _ = try await world.run()
        #expect(!server.requests().contains { $0.isWrite })
    }

    @Test("7. three accounts on one instance settle on one holder with one write, then none", arguments: [true, false])
    func threeAccounts(returnsID: Bool) async throws {
        let server = try FakeGitbayServer()
        server.returnsDeviceID = returnsID
        let world = try await ReconcileWorld()
        var names: [String] = []
        for user in ["alice", "bob", "dave"] { names.append(try await world.signIn(server, user).name) }
        try await world.setToken()
        server.resetRequests()
        let first = try await world.run()
        #expect(first.mapValues(\.condition) == [names[0]: .registered, names[1]: .shadowed, names[2]: .shadowed])
        #expect(server.devices().map(\.owner) == ["alice"])
        #expect(server.requests().filter(\.isWrite).map(\.user) == ["alice"])
        server.resetRequests()
        _ = try await world.run()
        #expect(server.requests().count == 3)
        #expect(server.requests().allSatisfy { $0.status == 304 })
    }

    @Test("1. a v1.32.0 server that returns no id: the row is found in a fresh list")
    func serverWithoutIDs() async throws {
        let server = try FakeGitbayServer()
        server.returnsDeviceID = false
        let world = try await ReconcileWorld()
        let alice = try await world.signIn(server, "alice")
        try await world.setToken()
        let first = try #require(try await world.run()[alice.name])
        let id = try #require(server.devices(of: "alice").first?.id)
        #expect(first.deviceID == id)
        #expect(try await world.store.registrations(ofAccount: alice.id).map(\.deviceID) == [id])
        server.resetRequests()
        _ = try await world.run()
        #expect(!server.requests().contains { $0.isWrite })
    }

    @Test("6. a row added but never recorded (a crash) is adopted, not duplicated")
    func adoptsUnrecordedRow() async throws {
        let server = try FakeGitbayServer()
        let world = try await ReconcileWorld()
        let alice = try await world.signIn(server, "alice")
        try await world.setToken()
        _ = try await world.run()
        let id = try #require(server.devices(of: "alice").first?.id)
        // Forget the record, as if the process died between `device add` and recording it.
        try await world.store.forgetRegistration(accountID: alice.id, deviceID: id)
        server.resetRequests()
        let outcome = try #require(try await world.run()[alice.name])
        #expect(outcome.action == .adopted)
        #expect(outcome.deviceID == id)
        #expect(server.devices(of: "alice").map(\.id) == [id])
        #expect(!server.requests().contains { $0.isWrite })
    }

    @Test("8. pause removes our row and keeps the account; resume registers it again")
    func pauseResume() async throws {
        let server = try FakeGitbayServer()
        let world = try await ReconcileWorld()
        let alice = try await world.signIn(server, "alice")
        try await world.setToken()
        _ = try await world.run()
        let paused = try await world.change(alice, to: .paused)
        #expect(paused[alice.name]?.action == .removed && paused[alice.name]?.condition == .paused)
        #expect(server.devices(of: "alice").isEmpty)
        server.resetRequests()
        #expect(try await world.run()[alice.name]?.condition == .paused)
        #expect(!server.requests().contains { $0.isWrite })
        let resumed = try await world.change(alice, to: .active)
        #expect(resumed[alice.name]?.condition == .registered)
        #expect(server.devices(of: "alice").map(\.token) == [Self.token])
    }

    @Test("a new label is pushed to the server on the next run, not skipped as unchanged")
    func labelChange() async throws {
        let server = try FakeGitbayServer()
        let world = try await ReconcileWorld()
        let alice = try await world.signIn(server, "alice")
        try await world.setToken()
        _ = try await world.run()
        _ = try await world.run()
        try await world.setToken(label: "desk")
        #expect(try await world.run()[alice.name]?.action == .reAdded)
        #expect(server.devices(of: "alice").first?.label.hasPrefix("desk [gbs-") == true)
        #expect(server.devices(of: "alice").count == 1)
    }

    @Test("no device token: nothing is registered, and the account says so")
    func noDeviceToken() async throws {
        let server = try FakeGitbayServer()
        let world = try await ReconcileWorld()
        let alice = try await world.signIn(server, "alice")
        let outcome = try #require(try await world.run()[alice.name])
        #expect(outcome.condition == .noDeviceToken && outcome.action == .unchanged && outcome.deviceID == nil)
        #expect(server.devices().isEmpty)
    }
}
