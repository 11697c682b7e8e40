import Foundation
import GitbayAPI
import GitbayFake
import TestSupport
import Testing

@Suite("Both transports")
struct TransportBehaviourTests {
    static let pushToken = "3f2a9c01d4e5b6a7980112233445566778899aabbccddeeff00112233445566"
    /// Plain http to a host that is not loopback by the rule (an IPv4-mapped address), and a
    /// scheme that is not http at all. Both name 127.0.0.1 itself, so that a transport that
    /// sent anyway would reach the fake, and nothing else.
    static let insecureDestinations: [(scheme: String, host: String)] = [("http", "::ffff:127.0.0.1"), ("ftp", "127.0.0.1")]

    @Test("a list comes back whole: its status, the header fields asked for and its body", arguments: TransportKind.allCases)
    func list(_ kind: TransportKind) async throws {
        let server = try FakeGitbayServer()
        defer { server.stop() }
        let token = server.mintToken(for: "alice")
        server.insertDevice(owner: "alice", token: Self.pushToken, label: "work-laptop")
        let response = try await kind.make().send(Requests.list(on: server, token: token), limits: Requests.limits(keeping: ["etag"]))
        #expect(response.status == 200)
        #expect(Set(response.headers.keys) == ["etag"])
        let body = try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
        let rows = try #require(body["data"] as? [[String: Any]])
        #expect(rows.map { $0["label"] as? String } == ["work-laptop"])
        let seen = try #require(server.requests().last)
        #expect(seen.headers["authorization"] == "Bearer \(token)")
        #expect(seen.headers["user-agent"] == "gitbay-sync")
        #expect(seen.headers["cookie"] == nil)
    }

    @Test("a 304 to a conditional list is an answer, with no body", arguments: TransportKind.allCases)
    func notModified(_ kind: TransportKind) async throws {
        let server = try FakeGitbayServer()
        defer { server.stop() }
        let token = server.mintToken(for: "alice")
        let transport = kind.make()
        let first = try await transport.send(Requests.list(on: server, token: token), limits: Requests.limits())
        let etag = try #require(first.headers["etag"])
        let second = try await transport.send(Requests.list(on: server, token: token, ifNoneMatch: etag), limits: Requests.limits())
        #expect(second.status == 304 && second.body.isEmpty)
        #expect(server.requests().map(\.status) == [200, 304])
    }

    @Test(
        "a redirect is not followed: its target is named without the query, and the second host never hears of it",
        arguments: TransportKind.allCases, [(302, true), (302, false), (301, true), (303, true), (307, false), (308, true), (300, true)])
    func redirect(_ kind: TransportKind, answer: (status: Int, absolute: Bool)) async throws {
        // A relative target would be the same server: a second request there would show. URLSession
        // asks its delegate about 301 to 308 only; a 300's target is read from its Location.
        let absolute = answer.absolute
        let server = try FakeGitbayServer()
        let elsewhere = try FakeGitbayServer()
        defer {
            server.stop()
            elsewhere.stop()
        }
        let token = server.mintToken(for: "alice")
        let location = absolute ? elsewhere.baseURL + "/api/v1/read?argv=whoami" : "/elsewhere?token=x"
        server.inject(.status(answer.status, body: "", headers: ["Location": location]), command: "notifications device list")
        let error = await #expect(throws: TransportError.self) {
            try await kind.make().send(Requests.list(on: server, token: token), limits: Requests.limits())
        }
        let target = absolute ? elsewhere.baseURL + "/api/v1/read" : server.baseURL + "/elsewhere"
        #expect(error == .redirect(status: answer.status, target: target))
        #expect(elsewhere.requests().isEmpty && elsewhere.connectionCount == 0)
        #expect(server.requests().count == 1)
    }

    @Test("a body past the limit is refused", arguments: TransportKind.allCases)
    func tooLarge(_ kind: TransportKind) async throws {
        let server = try FakeGitbayServer()
        defer { server.stop() }
        let token = server.mintToken(for: "alice")
        for index in 0..<10 {
            server.insertDevice(owner: "alice", token: "token-\(index)-0123456789", label: "device \(index)")
        }
        let error = await #expect(throws: TransportError.self) {
            try await kind.make().send(Requests.list(on: server, token: token), limits: Requests.limits(maxResponseBytes: 256))
        }
        #expect(error == .responseTooLarge(limit: 256))
    }

    @Test(
        "a body of unannounced length is taken up to the limit and refused past it, as it arrives",
        arguments: TransportKind.allCases, [(256, true), (257, false)])
    func streamedLimit(_ kind: TransportKind, size: (bytes: Int, accepted: Bool)) async throws {
        // Chunked, in two chunks: no Content-Length tells the size before the bytes do.
        let half = size.bytes / 2
        let chunks = [half, size.bytes - half].map { String($0, radix: 16) + "\r\n" + String(repeating: "x", count: $0) + "\r\n" }
        let listener = try RecordingListener(
            reply: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n" + chunks.joined() + "0\r\n\r\n")
        defer { listener.stop() }
        let request = HTTPRequest(method: "GET", url: listener.url + Requests.listPath)
        let limits = Requests.limits(maxResponseBytes: 256)
        if size.accepted {
            let response = try await kind.make().send(request, limits: limits)
            #expect(response.status == 200 && response.body == Array(repeating: UInt8(ascii: "x"), count: size.bytes))
        } else {
            let error = await #expect(throws: TransportError.self) { try await kind.make().send(request, limits: limits) }
            #expect(error == .responseTooLarge(limit: 256))
        }
    }

    @Test(
        "an insecure URL is refused before any connection",
        arguments: TransportKind.allCases, insecureDestinations)
    func insecure(_ kind: TransportKind, destination: (scheme: String, host: String)) async throws {
        let server = try FakeGitbayServer()
        defer { server.stop() }
        let authority = destination.host.contains(":") ? "[\(destination.host)]" : destination.host
        let request = HTTPRequest(method: "GET", url: "\(destination.scheme)://\(authority):\(server.port)\(Requests.listPath)")
        let error = await #expect(throws: TransportError.self) { try await kind.make().send(request, limits: Requests.limits()) }
        #expect(error == .insecureURL(scheme: destination.scheme, host: destination.host))
        #expect(server.connectionCount == 0)
    }

    @Test("a header field with a line break is refused before any connection", arguments: TransportKind.allCases)
    func headerInjection(_ kind: TransportKind) async throws {
        let server = try FakeGitbayServer()
        defer { server.stop() }
        var request = Requests.list(on: server, token: "gb_x")
        request.headers.append((name: "X-Label", value: "laptop\r\nX-Injected: 1"))
        let error = await #expect(throws: TransportError.self) { try await kind.make().send(request, limits: Requests.limits()) }
        #expect(error == .invalidRequest(reason: "a header field contains a line break or control character"))
        #expect(server.connectionCount == 0)
    }

    @Test("a port nobody listens on is a refused connection", arguments: TransportKind.allCases)
    func refused(_ kind: TransportKind) async throws {
        let closed = try ClosedPort()
        let request = HTTPRequest(method: "GET", url: "http://127.0.0.1:\(closed.port)\(Requests.listPath)")
        let error = await #expect(throws: TransportError.self) { try await kind.make().send(request, limits: Requests.limits()) }
        guard case .connectFailed(.refused, _)? = error else {
            Issue.record("expected a refused connection, got \(String(describing: error))")
            return
        }
    }

    @Test("a connection closed without an answer is a lost connection", arguments: TransportKind.allCases)
    func reset(_ kind: TransportKind) async throws {
        let server = try FakeGitbayServer()
        defer { server.stop() }
        let token = server.mintToken(for: "alice")
        server.inject(.reset, command: "notifications device list")
        let error = await #expect(throws: TransportError.self) {
            try await kind.make().send(Requests.list(on: server, token: token), limits: Requests.limits())
        }
        guard case .connectionLost? = error else {
            Issue.record("expected a lost connection, got \(String(describing: error))")
            return
        }
    }

    @Test("a hung server is cut off by the request timeout", arguments: TransportKind.allCases)
    func hung(_ kind: TransportKind) async throws {
        let server = try FakeGitbayServer()
        defer { server.stop() }
        let token = server.mintToken(for: "alice")
        server.inject(.hang, command: "notifications device list")
        let started = ContinuousClock.now
        let error = await #expect(throws: TransportError.self) {
            try await kind.make().send(Requests.list(on: server, token: token), limits: Requests.limits(requestTimeout: .milliseconds(300)))
        }
        let took = ContinuousClock.now - started
        // The transport's own timer, not URLSession's backstop, names the limit that applied.
        #expect(error == .timedOut(.request, limit: .milliseconds(300)))
        #expect(took >= .milliseconds(300))
    }

    @Test("cancelling the task aborts a hung request at once", arguments: TransportKind.allCases)
    func cancellation(_ kind: TransportKind) async throws {
        let server = try FakeGitbayServer()
        defer { server.stop() }
        let token = server.mintToken(for: "alice")
        server.inject(.hang, command: "notifications device list")
        let transport = kind.make()
        let request = Requests.list(on: server, token: token)
        let task = Task { () throws(TransportError) -> HTTPResponse in
            try await transport.send(request, limits: Requests.limits(requestTimeout: .seconds(60)))
        }
        while server.requests().isEmpty { try await Task.sleep(for: .milliseconds(10)) }
        task.cancel()
        // Within the 60 s timeout the only way to end is the cancellation.
        let error = await #expect(throws: TransportError.self) { try await task.value }
        #expect(error == .cancelled)
    }

    @Test("a task cancelled before it sends gets no answer", arguments: TransportKind.allCases)
    func cancelledFirst(_ kind: TransportKind) async throws {
        let server = try FakeGitbayServer()
        defer { server.stop() }
        let transport = kind.make()
        let request = Requests.list(on: server, token: server.mintToken(for: "alice"))
        let task = Task { () throws(TransportError) -> HTTPResponse in
            withUnsafeCurrentTask { $0?.cancel() }
            return try await transport.send(request, limits: Requests.limits())
        }
        let error = await #expect(throws: TransportError.self) { try await task.value }
        #expect(error == .cancelled)
        #expect(server.requests().isEmpty)
    }
}
