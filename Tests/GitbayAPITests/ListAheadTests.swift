import Foundation
import GitbayFake
import TestSupport
import Testing

@testable import GitbayAPI
@testable import GitbayCurl
@testable import GitbaySupport

/// A list's first exchange started ahead of the command (`startListAhead`) is that command's first
/// attempt: answered, retried, bounded by the deadline and counted as if the command had sent
/// it, and never sent twice.
@Suite("List sent ahead")
struct ListAheadTests {
    static let pushToken = "abcdef0123456789abcdef0123456789"

    /// The list started ahead, once it has ended.
    static func listAhead(_ client: GitbayClient, etag: String?) async -> ListAhead {
        await withCheckedContinuation { done in
            _ = client.startListAhead(ifNoneMatch: etag) { done.resume(returning: $0) }
        }
    }

    @Test("a list sent ahead is the command's one request: its 304 is the answer, counted once")
    func notModifiedAhead() async throws {
        let server = try FakeGitbayServer()
        defer { server.stop() }
        let client = try TestClients.make(server, token: server.mintToken(for: "alice"))
        server.insertDevice(owner: "alice", token: Self.pushToken, label: "laptop")
        guard case .list(_, let etag?) = try await client.listDevices(ifNoneMatch: nil) else {
            Issue.record("expected a list with an ETag")
            return
        }
        let ahead = await Self.listAhead(client, etag: etag)
        #expect(server.requests().count == 2)
        #expect(try await client.listDevices(ifNoneMatch: etag, ahead: ahead) == .notModified)
        #expect(server.requests().count == 2)
        #expect(server.requests().last?.status == 304)
        #expect(await client.requestCount == 2)
    }

    @Test("a list sent ahead and refused for a while is retried as the command's second attempt")
    func retriedAfterAhead() async throws {
        let server = try FakeGitbayServer()
        defer { server.stop() }
        let client = try TestClients.make(server, token: server.mintToken(for: "alice"))
        server.insertDevice(owner: "alice", token: Self.pushToken, label: "laptop")
        server.inject(.status(503, body: "busy"), command: "notifications device list")
        let ahead = await Self.listAhead(client, etag: nil)
        guard case .list(let rows, _) = try await client.listDevices(ifNoneMatch: nil, ahead: ahead) else {
            Issue.record("expected a list")
            return
        }
        #expect(rows.count == 1)
        #expect(server.requests().map(\.status) == [503, 200])
        #expect(await client.requestCount == 2)
    }

    @Test("the deadline counts from the list sent ahead: a hung server gets that one attempt, no retry")
    func deadlineFromAhead() async throws {
        let server = try FakeGitbayServer()
        defer { server.stop() }
        let client = try ClientDeadlineTests.client(server, requestTimeout: .seconds(3), deadline: .milliseconds(400))
        server.inject(.hang, command: "notifications device list", times: 10)
        let ahead = await Self.listAhead(client, etag: nil)
        let error = try #require(await #expect(throws: GitbayError.self) { try await client.listDevices(ifNoneMatch: nil, ahead: ahead) })
        #expect(error.kind == .transport(.timedOut(.deadline, limit: .milliseconds(400))))
        #expect(server.requests().count == 1)
        #expect(await client.requestCount == 1)
    }
}
