import Foundation
import GitbayFake
import GitbaySyncKit
import TestSupport
import Testing

/// The accounts' state as a screen shows it: read with no request, and followed as it changes.
@Suite("Push sync snapshot")
struct SnapshotTests {
    static let deviceToken = "feedface" + String(repeating: "04", count: 28)

    @Test("the snapshot reads every account's state with no request; a failure and its next attempt show")
    func snapshot() async throws {
        let folder = try TemporaryDirectory()
        let server = try FakeGitbayServer()
        let sync = try await GitbayPushSync(databasePath: folder.databasePath, transport: URLSessionTransport())
        try await sync.setDeviceToken(Self.deviceToken, label: "phone")
        let ann = try await sync.signIn(instance: server.baseURL, apiToken: server.mintToken(for: "ann")).account
        server.resetRequests()

        let registered = try #require(try await sync.snapshot().accounts.first)
        #expect(server.requests().isEmpty)
        #expect(registered.id == ann.id && registered.condition == .registered && registered.checkedAt != nil)
        #expect(registered.deviceID == server.devices(of: "ann").first?.id)

        server.isDown = true
        _ = try await sync.reconcile()
        let failed = try #require(try await sync.snapshot().accounts.first)
        #expect(failed.condition == .error && failed.lastFailure != nil && failed.nextAttemptAt != nil)
    }

    @Test("the change stream starts with the snapshot and follows each change the registrar makes")
    func changes() async throws {
        let folder = try TemporaryDirectory()
        let server = try FakeGitbayServer()
        let sync = try await GitbayPushSync(databasePath: folder.databasePath, transport: URLSessionTransport())
        var changes = try await sync.changes().makeAsyncIterator()
        #expect(await changes.next()?.accounts.isEmpty == true)

        try await sync.setDeviceToken(Self.deviceToken)
        #expect(await changes.next()?.deviceTokenSet == true)
        let ann = try await sync.signIn(instance: server.baseURL, apiToken: server.mintToken(for: "ann")).account
        #expect(await changes.next()?.accounts.map(\.condition) == [.registered])
        _ = try await sync.pause(ann)
        #expect(await changes.next()?.accounts.map(\.account.state) == [.paused])
    }
}
