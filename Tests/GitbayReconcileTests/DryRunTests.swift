import Foundation
import GitbayFake
import ReconcileSupport
import Testing

@testable import GitbayAPI
@testable import GitbayReconcile
@testable import GitbayState
@testable import GitbaySupport

/// A state of the world before a dry run, built through the core.
struct DryRunCase: Sendable, CustomTestStringConvertible {
    let name: String
    let build: @Sendable (ReconcileWorld, FakeGitbayServer) async throws -> Void

    var testDescription: String { name }
}

private let dryRunCases: [DryRunCase] = [
    DryRunCase(name: "signed in, never run") { world, server in
        try await world.setToken()
        try await world.signIn(server, "alice")
    },
    DryRunCase(name: "registered, then the token rotated") { world, server in
        _ = try await world.registeredAlice(on: server)
        try await world.setToken(ReconcileWorld.rotated)
    },
    DryRunCase(name: "registered, then paused") { world, server in
        let alice = try await world.registeredAlice(on: server)
        try await world.store.setState(.paused, ofAccount: alice.id)
    },
    DryRunCase(name: "registered, then the row reaped on the server") { world, server in
        _ = try await world.registeredAlice(on: server)
        for device in server.devices() { server.deleteDevice(id: device.id) }
    },
    DryRunCase(name: "registered, another device's row beside it, and a second account of the server") { world, server in
        _ = try await world.registeredAlice(on: server)
        _ = server.insertDevice(owner: "alice", token: "0ther0device0token0000000000", label: "phone")
        try await world.signIn(server, "bob")
    },
    DryRunCase(name: "registered, then being signed out") { world, server in
        let alice = try await world.registeredAlice(on: server)
        try await world.store.setState(.removing, ofAccount: alice.id)
    },
]

@Suite("Dry run")
struct DryRunTests {
    @Test("a dry run sends no write and changes no byte of the database, and plans exactly the writes the next run makes", arguments: dryRunCases)
    func matchesTheRun(_ testCase: DryRunCase) async throws {
        let world = try await ReconcileWorld()
        let server = try FakeGitbayServer()
        defer { server.stop() }
        try await testCase.build(world, server)
        let files = [world.folder.databasePath, world.folder.databasePath + "-wal"]
        let before = files.map { FileManager.default.contents(atPath: $0) }
        server.resetRequests()

        let plans = try await world.reconciler(honourBackoff: false).plans()
        #expect(server.requests().allSatisfy { !$0.isWrite })
        #expect(files.map { FileManager.default.contents(atPath: $0) } == before)
        #expect(plans.allSatisfy { $0.failure == nil })

        server.resetRequests()
        _ = try await world.run(honourBackoff: false)
        let writes = server.requests().filter(\.isWrite).map { Self.write($0) }
        let planned = plans.flatMap { plan in plan.actions.compactMap(Self.write) }
        #expect(writes.sorted() == planned.sorted())
    }

    /// A server's write as "add" or "remove N".
    static func write(_ request: FakeRequest) -> String {
        request.argv.contains("add") ? "add" : "remove " + (request.argv.last ?? "?")
    }

    static func write(_ action: PlannedAction) -> String? {
        switch action {
        case .add: "add"
        case .remove(let id, _): "remove \(id)"
        case .adopt, .forget: nil
        }
    }
}
