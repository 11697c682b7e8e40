import Foundation
import GitbayFake
import TestSupport
import Testing

@testable import GitbayAPI
@testable import GitbaySupport

@Suite("GitbayClient")
struct GitbayClientTests {
    static let pushToken = "3f2a9c01d4e5b6a7980112233445566778899aabbccddeeff00112233445566"

    // MARK: Commands

    @Test("a read's words are percent-encoded in argv, all but RFC 3986's unreserved characters")
    func readURLEncoding() {
        let base = "https://gitbay.org/api/v1/read"
        #expect(GitbayClient.readURL(base, argv: []) == base)
        #expect(GitbayClient.readURL(base, argv: ["whoami"]) == base + "?argv=whoami")
        #expect(
            GitbayClient.readURL(base, argv: ["a b", "x/y?z&w=1", "Az09-._~", "é", "\n%"])
                == base + "?argv=a%20b&argv=x%2Fy%3Fz%26w%3D1&argv=Az09-._~&argv=%C3%A9&argv=%0A%25")
        for text in ["https://gitbay.org", "http://127.0.0.1:1", "http://127.0.0.1:10", "https://[::1]:65535", "https://Host.Example:8443/"] {
            let instance = try! InstanceURL(parsing: text)
            for argv in [[], ["notifications", "device", "list"], ["a b"]] {
                #expect(GitbayClient.readURL(instance, argv: argv) == GitbayClient.readURL(instance.url(path: "/api/v1/read"), argv: argv))
            }
        }
        #expect(GitbayClient.readURL(try! InstanceURL(parsing: "https://[::1]:65535"), argv: []) == "https://[::1]:65535/api/v1/read")
        #expect(try! InstanceURL(parsing: "http://localhost:8080").description == "http://localhost:8080")
    }

    @Test("whoami names the token's account")
    func whoami() async throws {
        let server = try FakeGitbayServer()
        defer { server.stop() }
        let client = try TestClients.make(server, token: server.mintToken(for: "alice"))
        let whoAmI = try await client.whoami()
        #expect(whoAmI == WhoAmI(username: "alice"))
        #expect(client.requestCount == 1)
    }

    @Test("device add sends the token on stdin and the label in argv, and returns the id")
    func add() async throws {
        let server = try FakeGitbayServer()
        defer { server.stop() }
        let apiToken = server.mintToken(for: "alice")
        let client = try TestClients.make(server, token: apiToken)

        let result = try await client.addDevice(token: Secret(Self.pushToken), label: "work-laptop")
        let row = try #require(server.devices(of: "alice").first)
        #expect(result.id == row.id)
        #expect(row.token == Self.pushToken && row.label == "work-laptop")

        let request = try #require(server.requests().last)
        #expect(request.method == "POST" && request.path == "/api/v1/cmd")
        #expect(request.argv == ["notifications", "device", "add", "--label", "work-laptop"])
        #expect(request.stdin == Self.pushToken)
        #expect(request.headers["authorization"] == "Bearer \(apiToken)")
        #expect(request.headers["content-type"] == "application/json")
        #expect(request.headers["expect"] == nil)
    }

    @Test("adding the same token again keeps the id and overwrites the label")
    func reAdd() async throws {
        let server = try FakeGitbayServer()
        defer { server.stop() }
        let client = try TestClients.make(server, token: server.mintToken(for: "alice"))
        let first = try await client.addDevice(token: Secret(Self.pushToken), label: "old")
        let second = try await client.addDevice(token: Secret(Self.pushToken), label: "new")
        #expect(first.id != nil && first.id == second.id)
        #expect(server.devices(of: "alice").map(\.label) == ["new"])
    }

    @Test("a v1.32.0 server returns no id; the row is found by token prefix")
    func addWithoutID() async throws {
        let server = try FakeGitbayServer()
        defer { server.stop() }
        server.returnsDeviceID = false
        let client = try TestClients.make(server, token: server.mintToken(for: "alice"))
        let result = try await client.addDevice(token: Secret(Self.pushToken), label: "laptop")
        #expect(result.id == nil)
        guard case .list(let rows, _) = try await client.listDevices(ifNoneMatch: nil) else {
            Issue.record("expected a list")
            return
        }
        let prefix = String(Self.pushToken.prefix(8))
        let row = try #require(rows.first { $0.token.hasPrefix(prefix) })
        #expect(row.id == server.devices(of: "alice").first?.id)
    }

    @Test("device list shows rows with truncated tokens and an ETag")
    func list() async throws {
        let server = try FakeGitbayServer()
        defer { server.stop() }
        let client = try TestClients.make(server, token: server.mintToken(for: "alice"))
        server.insertDevice(owner: "alice", token: Self.pushToken, label: "laptop")
        server.insertDevice(owner: "bob", token: "ffffffffffffffffffff", label: "bob's")
        guard case .list(let rows, let etag) = try await client.listDevices(ifNoneMatch: nil) else {
            Issue.record("expected a list")
            return
        }
        #expect(rows.count == 1)
        #expect(rows.first?.label == "laptop")
        #expect(rows.first?.token == "3f2a9c01\u{2026}")
        #expect(rows.first?.added.hasSuffix("Z") == true)
        #expect(etag != nil)
        let request = try #require(server.requests().last)
        #expect(request.method == "GET" && request.path == "/api/v1/read")
        #expect(request.query == "argv=notifications&argv=device&argv=list")
    }

    @Test("a list with the remembered ETag is 304 not modified, in one request")
    func notModified() async throws {
        let server = try FakeGitbayServer()
        defer { server.stop() }
        let client = try TestClients.make(server, token: server.mintToken(for: "alice"))
        server.insertDevice(owner: "alice", token: Self.pushToken, label: "laptop")
        guard case .list(_, let etag?) = try await client.listDevices(ifNoneMatch: nil) else {
            Issue.record("expected a list with an ETag")
            return
        }
        let before = client.requestCount
        #expect(try await client.listDevices(ifNoneMatch: etag) == .notModified)
        #expect(client.requestCount == before + 1)
        #expect(server.requests().last?.status == 304)
        #expect(server.requests().last?.headers["if-none-match"] == etag)

        // A change on the server makes the old tag stale.
        _ = try await client.addDevice(token: Secret("another-token-0001"), label: "phone")
        guard case .list(let rows, let newTag) = try await client.listDevices(ifNoneMatch: etag) else {
            Issue.record("expected a fresh list after a change")
            return
        }
        #expect(rows.count == 2 && newTag != etag)
    }

    @Test("a reused id shows another device's token prefix")
    func idReuse() async throws {
        let server = try FakeGitbayServer()
        defer { server.stop() }
        let client = try TestClients.make(server, token: server.mintToken(for: "alice"))
        let ours = try #require(try await client.addDevice(token: Secret(Self.pushToken), label: "laptop").id)
        server.deleteDevice(id: ours)
        let reused = server.insertDevice(owner: "alice", token: "0123456789abcdef0123", label: "other")
        try #require(reused == ours, "the fake reuses the freed id")
        guard case .list(let rows, _) = try await client.listDevices(ifNoneMatch: nil) else {
            Issue.record("expected a list")
            return
        }
        let row = try #require(rows.first { $0.id == ours })
        #expect(!row.token.hasPrefix(String(Self.pushToken.prefix(8))))
    }

    @Test("device remove removes, and a missing or foreign id is already gone")
    func remove() async throws {
        let server = try FakeGitbayServer()
        defer { server.stop() }
        let client = try TestClients.make(server, token: server.mintToken(for: "alice"))
        let id = try #require(try await client.addDevice(token: Secret(Self.pushToken), label: "laptop").id)
        let bobs = server.insertDevice(owner: "bob", token: "b0b0b0b0b0b0b0b0b0b0", label: "bob")
        #expect(try await client.removeDevice(id: id) == .removed)
        #expect(server.devices(of: "alice").isEmpty)
        #expect(try await client.removeDevice(id: id) == .alreadyGone)
        #expect(try await client.removeDevice(id: bobs) == .alreadyGone)
        #expect(server.devices(of: "bob").count == 1)
        #expect(server.requests().last?.argv == ["notifications", "device", "remove", String(bobs)])
    }

    @Test("settings show and push off")
    func settings() async throws {
        let server = try FakeGitbayServer()
        defer { server.stop() }
        let client = try TestClients.make(server, token: server.mintToken(for: "alice"))
        #expect(try await client.settings() == NotificationSettings(mail: true, watch: true, push: true))
        #expect(try await client.setPush(false) == NotificationSettings(mail: true, watch: true, push: false))
        #expect(server.pushSetting(of: "alice") == false)
        #expect(try await client.setPush(true).push)
    }
}
