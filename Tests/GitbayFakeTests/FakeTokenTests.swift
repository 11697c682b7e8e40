import Foundation
import GitbayFake
import TestSupport
import Testing

/// `token create`, `token list` and `token revoke` on the fake, over real HTTP, and the
/// lifetimes, lookups and refusals around them as PROTOCOL.md describes.
@Suite("Fake gitbay server: API tokens")
struct FakeTokenTests {
    /// A fixed instant to set the fake's clock to: 2026-09-20T14:03:07.123Z.
    static let start = Date(timeIntervalSince1970: 1_789_912_987.123)

    static func create(_ name: String, _ extra: [String] = []) -> [String] {
        ["token", "create", "--name", name] + extra + ["--json"]
    }

    @Test("token create answers the name, the scope and a gb_ token that the server then accepts")
    func createThenUse() throws {
        let server = try FakeGitbayServer()
        defer { server.stop() }
        let first = server.mintToken(for: "alice")

        let created = try RawHTTP.command(server.port, token: first, Self.create("laptop", ["--scope", "full"]))

        #expect(created.status == 200)
        #expect(created.exitCode == 0)
        let data = try #require(created.dataObject)
        #expect(data.keys.sorted() == ["name", "scope", "token"])
        #expect(data["name"] as? String == "laptop")
        #expect(data["scope"] as? String == "full")
        let token = try #require(data["token"] as? String)
        #expect(token.hasPrefix("gb_") && token.count == 43)
        #expect(token.dropFirst(3).allSatisfy { $0.isHexDigit && !$0.isUppercase })
        let whoami = try RawHTTP.read(server.port, token: token, ["whoami"])
        #expect(whoami.status == 200)
        #expect(whoami.dataObject?["username"] as? String == "alice")
        #expect(server.tokens(of: "alice").map(\.name) == ["token-1", "laptop"])
    }

    @Test("a read-scope token it mints reads but cannot write, and a read token cannot mint")
    func readScope() throws {
        let server = try FakeGitbayServer()
        defer { server.stop() }
        let full = server.mintToken(for: "alice")
        let created = try RawHTTP.command(server.port, token: full, Self.create("reader", ["--scope", "read"]))
        let reader = try #require(created.dataObject?["token"] as? String)
        #expect(created.dataObject?["scope"] as? String == "read")

        #expect(try RawHTTP.read(server.port, token: reader, ["notifications", "device", "list"]).status == 200)
        let write = try RawHTTP.command(server.port, token: reader, ["notifications", "device", "add", "--label", "x"], stdin: "3f2a9c01aa")
        #expect(write.status == 403)
        #expect(write.exitCode == 4)
        let mint = try RawHTTP.command(server.port, token: reader, Self.create("more"))
        #expect(mint.status == 403)
        #expect(mint.exitCode == 4)
        #expect(server.tokens(of: "alice").map(\.name) == ["token-1", "reader"])
    }

    @Test("a name the account already uses fails; another account may use it")
    func duplicateName() throws {
        let server = try FakeGitbayServer()
        defer { server.stop() }
        let alice = server.mintToken(for: "alice", name: "gitbay-sync")
        let bob = server.mintToken(for: "bob")

        let again = try RawHTTP.command(server.port, token: alice, Self.create("gitbay-sync"))
        let other = try RawHTTP.command(server.port, token: bob, Self.create("gitbay-sync"))

        #expect(again.status == 500)
        #expect(again.exitCode == 1)
        #expect(again.error?.hasPrefix("you already have a token named \"gitbay-sync\"") == true)
        #expect(again.data == nil)
        #expect(server.tokens(of: "alice").count == 1)
        #expect(other.status == 200)
        #expect(server.tokens(of: "bob").map(\.name) == ["token-2", "gitbay-sync"])
    }

    /// A `token create` the dispatcher refuses as a usage error.
    struct UsageCase: Sendable, CustomTestStringConvertible {
        let name: String
        let argv: [String]
        var testDescription: String { name }
    }

    static let usageCases: [UsageCase] = [
        UsageCase(name: "no --name", argv: ["token", "create"]),
        UsageCase(name: "an empty --name", argv: ["token", "create", "--name", ""]),
        UsageCase(name: "--name without its value", argv: ["token", "create", "--name"]),
        UsageCase(name: "--name=value is an unknown flag", argv: ["token", "create", "--name=x"]),
        UsageCase(name: "a scope that is neither full nor read", argv: ["token", "create", "--name", "x", "--scope", "admin"]),
        UsageCase(name: "a positional name", argv: ["token", "create", "x"]),
        UsageCase(name: "revoke without a name", argv: ["token", "revoke"]),
        UsageCase(name: "revoke of two names", argv: ["token", "revoke", "a", "b"]),
        UsageCase(name: "list takes no arguments", argv: ["token", "list", "all"]),
    ]

    @Test("token commands with bad arguments are usage errors", arguments: usageCases)
    func usage(_ example: UsageCase) throws {
        let server = try FakeGitbayServer()
        defer { server.stop() }
        let token = server.mintToken(for: "alice")

        let response = try RawHTTP.command(server.port, token: token, example.argv)

        #expect(response.status == 400)
        #expect(response.exitCode == 2)
        #expect(response.error?.isEmpty == false)
        #expect(server.tokens(of: "alice").count == 1)
    }

    @Test("token list shows name, scope and times in creation order, expires_at and last_used_at only when set, never a token")
    func list() throws {
        let server = try FakeGitbayServer()
        defer { server.stop() }
        server.now = Self.start
        let lister = server.mintToken(for: "alice", name: "lister")
        let unused = server.mintToken(for: "alice", scope: .read, name: "unused", lifetime: .seconds(30 * 86_400))
        server.mintToken(for: "bob", name: "bobs")

        let response = try RawHTTP.read(server.port, token: lister, ["token", "list", "--json"])

        #expect(response.status == 200)
        #expect(response.headers["etag"] != nil)
        let rows = try #require(response.dataArray)
        #expect(rows.map { $0["name"] as? String } == ["lister", "unused"])
        #expect(rows[0].keys.sorted() == ["created_at", "last_used_at", "name", "scope"])
        #expect(rows[0]["created_at"] as? String == "2026-09-20T14:03:07.123Z")
        #expect(rows[0]["last_used_at"] as? String == "2026-09-20T14:03:07.123Z", "this very request is a lookup")
        #expect(rows[1].keys.sorted() == ["created_at", "expires_at", "name", "scope"])
        #expect(rows[1]["scope"] as? String == "read")
        #expect(rows[1]["expires_at"] as? String == "2026-10-20T14:03:07.123Z")
        #expect(!response.text.contains(lister) && !response.text.contains(unused) && !response.text.contains("gb_"))
    }

    @Test("every successful lookup refreshes last_used_at; a refused one does not")
    func lastUsed() throws {
        let server = try FakeGitbayServer()
        defer { server.stop() }
        server.now = Self.start
        let token = server.mintToken(for: "alice", name: "sync", lifetime: .seconds(3600))
        #expect(server.tokens(of: "alice").first?.lastUsedAt == nil)

        _ = try RawHTTP.read(server.port, token: token, ["whoami"])
        #expect(server.tokens(of: "alice").first?.lastUsedAt == Self.start)
        server.now = Self.start + 600
        _ = try RawHTTP.command(server.port, token: token, ["notifications", "settings", "push", "on"])
        #expect(server.tokens(of: "alice").first?.lastUsedAt == Self.start + 600)
        server.now = Self.start + 7200
        #expect(try RawHTTP.read(server.port, token: token, ["whoami"]).status == 401)
        #expect(server.tokens(of: "alice").first?.lastUsedAt == Self.start + 600)
        #expect(!server.accepts(token))
    }

    @Test("token revoke answers the name; an unknown name is exit 3 and changes nothing")
    func revoke() throws {
        let server = try FakeGitbayServer()
        defer { server.stop() }
        let token = server.mintToken(for: "alice", name: "mine")
        let other = server.mintToken(for: "alice", name: "old")
        let bobs = server.mintToken(for: "bob", name: "bobs")

        let revoked = try RawHTTP.command(server.port, token: token, ["token", "revoke", "old", "--json"])
        let unknown = try RawHTTP.command(server.port, token: token, ["token", "revoke", "old"])
        let foreign = try RawHTTP.command(server.port, token: token, ["token", "revoke", "bobs"])

        #expect(revoked.status == 200)
        #expect(revoked.dataObject?.count == 1)
        #expect(revoked.dataObject?["revoked"] as? String == "old")
        #expect(try RawHTTP.read(server.port, token: other, ["whoami"]).status == 401)
        for refused in [unknown, foreign] {
            #expect(refused.status == 404)
            #expect(refused.exitCode == 3)
            #expect(refused.error?.isEmpty == false)
        }
        #expect(server.accepts(bobs), "another account's token of that name is not the caller's")
        #expect(server.tokens(of: "alice").map(\.name) == ["mine"])
    }

    @Test("a token may revoke itself: that request succeeds, the next is 401")
    func revokeItself() throws {
        let server = try FakeGitbayServer()
        defer { server.stop() }
        let token = server.mintToken(for: "alice", name: "gitbay-sync-laptop")

        let revoked = try RawHTTP.command(server.port, token: token, ["token", "revoke", "gitbay-sync-laptop"])
        let next = try RawHTTP.read(server.port, token: token, ["whoami"])

        #expect(revoked.status == 200)
        #expect(revoked.dataObject?["revoked"] as? String == "gitbay-sync-laptop")
        #expect(next.status == 401)
        #expect(next.error == "invalid or expired token")
        #expect(next.exitCode == nil)
        #expect(server.tokens(of: "alice").isEmpty)
    }

    @Test("a token works until its expires_at, then answers exactly like a revoked or unknown one")
    func expiry() throws {
        let server = try FakeGitbayServer()
        defer { server.stop() }
        server.now = Self.start
        let minter = server.mintToken(for: "alice")
        let created = try RawHTTP.command(server.port, token: minter, Self.create("month", ["--ttl", "30d"]))
        let token = try #require(created.dataObject?["token"] as? String)
        let revoked = server.mintToken(for: "alice")
        server.revokeToken(revoked)

        server.now = Self.start + 30 * 86_400 - 0.001
        #expect(try RawHTTP.read(server.port, token: token, ["whoami"]).status == 200)
        server.now = Self.start + 30 * 86_400
        let expired = try RawHTTP.read(server.port, token: token, ["whoami"])
        let wasRevoked = try RawHTTP.read(server.port, token: revoked, ["whoami"])
        let unknown = try RawHTTP.read(server.port, token: "gb_" + String(repeating: "0", count: 40), ["whoami"])

        #expect(expired.status == 401)
        #expect(expired.headers["www-authenticate"] == #"Bearer realm="gitbay api""#)
        #expect(expired.text == #"{"protocol_version":1,"error":"invalid or expired token"}"#)
        #expect(wasRevoked.status == 401 && wasRevoked.text == expired.text)
        #expect(unknown.status == 401 && unknown.text == expired.text)
        #expect(server.requests().last?.user == nil, "an expired token resolves to no account")
        #expect(server.tokens(of: "alice").map(\.name).contains("month"), "an expired token is still listed")
    }
}
