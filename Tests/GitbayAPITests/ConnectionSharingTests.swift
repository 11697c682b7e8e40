import GitbayFake
import TestSupport
import Testing

@testable import GitbayAPI
@testable import GitbayCurl
@testable import GitbaySupport

/// Accounts of one instance share connections through their `ConnectionPool`; each keeps its
/// own token. The fake counts the TCP connections it accepts. Every test has a pool of its own,
/// so no other test's connections are in it.
@Suite("Connection sharing")
struct ConnectionSharingTests {
    /// One client per account of `server`, each with its own token, all on `pool`.
    private static func clients(
        of server: FakeGitbayServer, _ count: Int, prefix: String = "user", pool: ConnectionPool
    ) throws -> [(user: String, client: GitbayClient)] {
        server.enforceRateLimits = false
        return try (0..<count).map { index in
            let user = "\(prefix)\(index)"
            let token = server.mintToken(for: user)
            return (user, try TestClients.make(server, token: token, user: user, retry: .never, connections: pool))
        }
    }

    @Test("sequential requests of eight accounts go over one connection, each with its own token")
    func sequentialAccountsShareOneConnection() async throws {
        let server = try FakeGitbayServer()
        defer { server.stop() }
        let accounts = try Self.clients(of: server, 8, pool: ConnectionPool())

        for round in 0..<2 {
            for (user, client) in accounts {
                #expect(try await client.whoami().username == user, "round \(round)")
            }
        }

        #expect(server.connectionCount == 1)
        #expect(server.requests().count == 16)
        #expect(server.requests().map(\.user) == (accounts + accounts).map(\.user))
    }

    @Test("eight accounts at once open no more connections than requests in flight, over two rounds")
    func concurrentAccountsReuseConnections() async throws {
        let server = try FakeGitbayServer()
        defer { server.stop() }
        let accounts = try Self.clients(of: server, 8, pool: ConnectionPool())

        #expect(try await Self.answerAtOnce(accounts) == 40)
        let opened = server.connectionCount
        #expect(try await Self.answerAtOnce(accounts) == 40)

        #expect(server.requests().count == 80)
        // At most eight requests are ever in flight, so at most eight connections are ever
        // opened: the second round reuses the first round's, opening only what it runs beyond them.
        #expect((1...8).contains(opened))
        #expect((opened...8).contains(server.connectionCount))
    }

    /// Every account at once, each making five requests one after another; the answers counted.
    private static func answerAtOnce(_ accounts: [(user: String, client: GitbayClient)]) async throws -> Int {
        try await withThrowingTaskGroup(of: Int.self) { group in
            for (user, client) in accounts {
                group.addTask {
                    for _ in 0..<4 {
                        guard try await client.whoami().username == user else { return 0 }
                    }
                    _ = try await client.listDevices(ifNoneMatch: nil)
                    return 5
                }
            }
            return try await group.reduce(0, +)
        }
    }

    @Test("requests to two instances never share a connection")
    func instancesDoNotShare() async throws {
        let first = try FakeGitbayServer()
        let second = try FakeGitbayServer()
        defer {
            first.stop()
            second.stop()
        }
        let pool = ConnectionPool()
        let ones = try Self.clients(of: first, 4, prefix: "one", pool: pool)
        let twos = try Self.clients(of: second, 4, prefix: "two", pool: pool)

        for (one, two) in zip(ones, twos) {
            #expect(try await one.client.whoami().username == one.user)
            #expect(try await two.client.whoami().username == two.user)
        }

        #expect(first.connectionCount == 1)
        #expect(second.connectionCount == 1)
        #expect(first.requests().map(\.user) == ones.map(\.user))
        #expect(second.requests().map(\.user) == twos.map(\.user))
    }

    @Test("a connection the server closed while idle is replaced by a new one")
    func closedIdleConnectionIsReplaced() async throws {
        let pool = ConnectionPool()
        let first = try FakeGitbayServer()
        let tokens = [("alice", "gb_" + String(repeating: "a1", count: 20)), ("bob", "gb_" + String(repeating: "b2", count: 20))]
        tokens.forEach { first.addToken($1, for: $0) }
        let alice = try TestClients.make(first, token: tokens[0].1, user: "alice", retry: .never, connections: pool)
        let bob = try TestClients.make(first, token: tokens[1].1, user: "bob", retry: .never, connections: pool)
        #expect(try await alice.whoami().username == "alice")
        #expect(first.connectionCount == 1)

        // The server closes the idle connection (as one restarting, or timing it out, does).
        first.closeConnections()

        #expect(try await bob.whoami().username == "bob")
        #expect(try await alice.whoami().username == "alice")
        #expect(bob.requestCount == 1)
        #expect(first.connectionCount == 2)
    }

    @Test("a reused connection the server resets before answering is replaced, the request sent again on a new one")
    func droppedConnectionIsReplaced() async throws {
        let server = try FakeGitbayServer()
        defer { server.stop() }
        let accounts = try Self.clients(of: server, 2, pool: ConnectionPool())
        #expect(try await accounts[0].client.whoami().username == "user0")
        server.inject(.reset, command: "whoami", user: "user1")

        #expect(try await accounts[1].client.whoami().username == "user1")
        // libcurl sends a request again, once, when a connection it reused breaks before any
        // answer; the client's own retries (none here) are not needed.
        #expect(accounts[1].client.requestCount == 1)
        #expect(server.connectionCount == 2)
        #expect(server.requests().map(\.status) == [200, 0, 200])
        #expect(server.requests().map(\.user) == ["user0", "user1", "user1"])
    }
}
