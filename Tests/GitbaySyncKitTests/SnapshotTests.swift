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
        let run = try #require(try await sync.reconcile().first)
        let failed = try #require(try await sync.snapshot().accounts.first)
        #expect(failed.condition == .error && failed.nextAttemptAt != nil)
        let said = try #require(run.failure?.description)
        #expect(failed.lastFailure == .earlierRun(recorded: said), "the run's failure, as the database keeps it")
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

    @Test("during a run, the change stream shows each account as it is done, before a hung server's account ends")
    func changesDuringRun() async throws {
        let folder = try TemporaryDirectory()
        let (hung, other) = (try FakeGitbayServer(), try FakeGitbayServer())
        let sync = try await GitbayPushSync(databasePath: folder.databasePath, transport: URLSessionTransport())
        try await sync.setDeviceToken(Self.deviceToken)
        _ = try await sync.signIn(instance: hung.baseURL, apiToken: hung.mintToken(for: "ann"))
        let bob = try await sync.signIn(instance: other.baseURL, apiToken: other.mintToken(for: "bob")).account
        hung.latency = .seconds(20)
        other.inject(.rateLimited(retryAfter: 600), times: 10)
        var changes = try await sync.changes().makeAsyncIterator()
        _ = await changes.next()
        let run = Task { try await sync.reconcile(budget: .seconds(3)) }
        defer { run.cancel() }
        while let snapshot = await changes.next() {
            if snapshot.accounts.first(where: { $0.id == bob.id })?.retryReason == .retryAfter { break }
        }
        let clock = ContinuousClock()
        #expect(await clock.measure { _ = try? await run.value } > .seconds(1), "the run still waits for the hung server")
    }
}
