import GitbayAPI
import GitbayFake
import GitbaySupport
import Testing

@Suite("GitbayClient over both transports")
struct TransportClientTests {
    static func client(_ server: FakeGitbayServer, token: String, over kind: TransportKind) throws -> GitbayClient {
        let instance = try InstanceURL(parsing: server.baseURL)
        // No deadline: none of these tests is about time, and a loaded machine must not fail them.
        var configuration = ClientConfiguration(transport: Requests.limits(), retry: .never, http: kind.make())
        configuration.deadline = nil
        return GitbayClient(
            instance: instance, apiToken: Secret(token), accountName: "alice@\(instance.authority)",
            configuration: configuration, logger: .disabled)
    }

    @Test("a client adds a device, lists it, lists again unchanged, removes it and finds it gone", arguments: TransportKind.allCases)
    func addListRemove(_ kind: TransportKind) async throws {
        let server = try FakeGitbayServer()
        defer { server.stop() }
        let token = server.mintToken(for: "alice")
        let client = try Self.client(server, token: token, over: kind)

        let id = try #require(try await client.addDevice(token: Secret(TransportBehaviourTests.pushToken), label: "work-laptop").id)
        let added = try #require(server.requests().last)
        #expect(added.method == "POST" && added.stdin == TransportBehaviourTests.pushToken)
        #expect(added.headers["authorization"] == "Bearer \(token)" && added.headers["expect"] == nil)

        guard case .list(let rows, let etag?) = try await client.listDevices(ifNoneMatch: nil) else {
            Issue.record("expected a list with an ETag")
            return
        }
        #expect(rows.map(\.id) == [id] && rows.first?.label == "work-laptop")
        #expect(try await client.listDevices(ifNoneMatch: etag) == .notModified)

        #expect(try await client.removeDevice(id: id) == .removed)
        #expect(server.devices(of: "alice").isEmpty)
        #expect(try await client.removeDevice(id: id) == .alreadyGone)
        #expect(client.requestCount == 5)
    }

    @Test("a refused token is the server's 401, sent once and answered as it came", arguments: TransportKind.allCases)
    func authFailed(_ kind: TransportKind) async throws {
        let server = try FakeGitbayServer()
        defer { server.stop() }
        let client = try Self.client(server, token: "gb_" + String(repeating: "0", count: 40), over: kind)
        let error = try #require(await #expect(throws: GitbayError.self) { try await client.whoami() })
        #expect(error.kind == .authFailed && error.httpStatus == 401)
        #expect(error.serverMessage == "invalid or expired token")
        #expect(server.requests().map(\.status) == [401])
    }
}
