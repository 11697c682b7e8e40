import Foundation
import GitbayFake
import Synchronization
import TestSupport
import Testing

@testable import GitbayAPI
@testable import GitbayCurl
@testable import GitbaySupport

/// A command the client can be asked to run in a table.
enum ClientCall: String, Sendable {
    case whoami, add, list, remove, settings

    func run(_ client: GitbayClient) async throws(GitbayError) {
        switch self {
        case .whoami: _ = try await client.whoami()
        case .add: _ = try await client.addDevice(token: Secret(GitbayClientTests.pushToken), label: "laptop")
        case .list: _ = try await client.listDevices(ifNoneMatch: nil)
        case .remove: _ = try await client.removeDevice(id: 1)
        case .settings: _ = try await client.settings()
        }
    }
}

/// One row of the error model, end to end: a server condition and the error the client reports.
struct ClientErrorCase: Sendable, CustomTestStringConvertible {
    let name: String
    let call: ClientCall
    let scope: TokenScope
    let setUp: @Sendable (FakeGitbayServer) -> Void
    let kind: GitbayError.Kind
    let status: Int?
    let exitCode: Int?

    var testDescription: String { name }
}

@Suite("GitbayClient errors")
struct GitbayClientErrorTests {
    static func fault(_ fault: FakeFault, on command: String) -> @Sendable (FakeGitbayServer) -> Void {
        { $0.inject(fault, command: command, times: 1) }
    }

    static let cases: [ClientErrorCase] = [
        ClientErrorCase(
            name: "read-only token writing", call: .add, scope: .read, setUp: { _ in },
            kind: .readOnlyToken, status: 403, exitCode: 4),
        ClientErrorCase(
            name: "per-account write limit", call: .add, scope: .full,
            setUp: fault(.writeLimited(seconds: 7), on: "notifications device add"),
            kind: .writeLimited(retryAfter: .seconds(7)), status: 403, exitCode: 4),
        ClientErrorCase(
            name: "API limiter 429", call: .list, scope: .full,
            setUp: fault(.rateLimited(retryAfter: 9), on: "notifications device list"),
            kind: .rateLimited(retryAfter: .seconds(9)), status: 429, exitCode: nil),
        ClientErrorCase(
            name: "503 with Retry-After", call: .whoami, scope: .full,
            setUp: fault(.status(503, body: #"{"protocol_version":1,"error":"busy"}"#, headers: ["Retry-After": "9"]), on: "whoami"),
            kind: .rateLimited(retryAfter: .seconds(9)), status: 503, exitCode: nil),
        ClientErrorCase(
            name: "404 from gitbay", call: .whoami, scope: .full,
            setUp: fault(.status(404, body: #"{"protocol_version":1,"error":"no such thing","exit_code":3}"#), on: "whoami"),
            kind: .notFound, status: 404, exitCode: 3),
        ClientErrorCase(
            name: "push disabled on the instance", call: .add, scope: .full, setUp: { $0.pushEnabled = false },
            kind: .pushDisabled, status: 500, exitCode: 1),
        ClientErrorCase(
            name: "usage: a server rejecting the command line", call: .whoami, scope: .full,
            setUp: fault(.status(400, body: #"{"protocol_version":1,"error":"unknown flag","exit_code":2}"#), on: "whoami"),
            kind: .usage, status: 400, exitCode: 2),
        ClientErrorCase(
            name: "502 HTML from a proxy", call: .list, scope: .full,
            setUp: fault(.status(502, body: "<html>bad gateway</html>"), on: "notifications device list"),
            kind: .serverFailure, status: 502, exitCode: nil),
        ClientErrorCase(
            name: "store failure, exit 1", call: .whoami, scope: .full,
            setUp: fault(.status(500, body: #"{"protocol_version":1,"error":"database is locked","exit_code":1}"#), on: "whoami"),
            kind: .serverFailure, status: 500, exitCode: 1),
        ClientErrorCase(
            name: "API disabled: the HTML 404 page", call: .whoami, scope: .full, setUp: { $0.apiEnabled = false },
            kind: .notJSON, status: 404, exitCode: nil),
        ClientErrorCase(
            name: "garbage labelled as JSON", call: .settings, scope: .full,
            setUp: fault(.garbage, on: "notifications settings show"),
            kind: .notJSON, status: 200, exitCode: nil),
        ClientErrorCase(
            name: "truncated JSON", call: .list, scope: .full,
            setUp: fault(.truncatedJSON, on: "notifications device list"),
            kind: .malformed, status: 200, exitCode: nil),
        ClientErrorCase(
            name: "protocol_version 2", call: .whoami, scope: .full,
            setUp: fault(.protocolVersion(2), on: "whoami"),
            kind: .protocolVersion(2), status: 200, exitCode: 0),
    ]

    @Test("a server condition becomes its GitbayError", arguments: cases)
    func errorModel(_ row: ClientErrorCase) async throws {
        let server = try FakeGitbayServer()
        defer { server.stop() }
        let client = try TestClients.make(server, token: server.mintToken(for: "alice", scope: row.scope), retry: .never)
        row.setUp(server)
        let error = try #require(await #expect(throws: GitbayError.self) { try await row.call.run(client) })
        #expect(error.kind == row.kind)
        #expect(error.httpStatus == row.status)
        #expect(error.exitCode == row.exitCode)
        #expect(error.account == "alice@\(try InstanceURL(parsing: server.baseURL).authority)")
        #expect(client.requestCount == 1)
    }

    @Test("401: a revoked token and an unknown token both fail auth, without a retry", arguments: [true, false])
    func authFailed(revoked: Bool) async throws {
        let server = try FakeGitbayServer()
        defer { server.stop() }
        let token = revoked ? server.mintToken(for: "alice") : "gb_" + String(repeating: "0", count: 40)
        if revoked { server.revokeToken(token) }
        let client = try TestClients.make(server, token: token)
        let error = try #require(await #expect(throws: GitbayError.self) { try await client.whoami() })
        #expect(error.kind == .authFailed && error.httpStatus == 401 && error.exitCode == nil)
        #expect(error.serverMessage == "invalid or expired token")
        #expect(client.requestCount == 1)
    }

    @Test("a reset connection is a transport failure")
    func reset() async throws {
        let server = try FakeGitbayServer()
        defer { server.stop() }
        let client = try TestClients.make(server, token: server.mintToken(for: "alice"), retry: .never)
        server.inject(.reset, command: "whoami")
        let error = try #require(await #expect(throws: GitbayError.self) { try await client.whoami() })
        guard case .transport(.connectionLost) = error.kind else {
            Issue.record("expected a lost connection, got \(error.kind)")
            return
        }
    }

    @Test("https to a server that does not speak TLS is a TLS failure, not retried, naming no token")
    func tlsFailure() async throws {
        let listener = try PlainTextListener()
        defer { listener.stop() }
        let token = "gb_tls_probe_token_0123456789"
        let client = GitbayClient(
            instance: try InstanceURL(parsing: "https://127.0.0.1:\(listener.port)"), apiToken: Secret(token),
            accountName: "alice@127.0.0.1:\(listener.port)",
            configuration: ClientConfiguration(
                transport: TransportConfiguration(connectTimeout: .seconds(2), requestTimeout: .seconds(5), maxResponseBytes: 1 << 20),
                retry: TestClients.fastRetry, http: CurlTransport.shared
            ),
            logger: .disabled
        )
        let error = try #require(await #expect(throws: GitbayError.self) { try await client.whoami() })
        guard case .transport(.tlsFailed) = error.kind else {
            Issue.record("expected a TLS failure, got \(error.kind)")
            return
        }
        #expect(!error.isRetryable)
        #expect(client.requestCount == 1)
        #expect(!error.description.contains(token))
    }

    @Test("a port nobody listens on is a refused connection")
    func refused() async throws {
        let closed = try ClosedPort()
        let instance = try InstanceURL(parsing: "http://127.0.0.1:\(closed.port)")
        let client = GitbayClient(
            instance: instance, apiToken: Secret("gb_unused"), accountName: "alice@\(instance.authority)",
            configuration: ClientConfiguration(retry: .never, http: CurlTransport.shared), logger: .disabled
        )
        let error = try #require(await #expect(throws: GitbayError.self) { try await client.whoami() })
        guard case .transport(.connectFailed(.refused, _)) = error.kind else {
            Issue.record("expected a refused connection, got \(error.kind)")
            return
        }
    }

    @Test("a hung server is cut off by the request timeout")
    func hung() async throws {
        let server = try FakeGitbayServer()
        defer { server.stop() }
        let client = try TestClients.make(
            server, token: server.mintToken(for: "alice"), requestTimeout: .milliseconds(300), retry: .never)
        server.inject(.hang, command: "notifications device list")
        let error = try #require(await #expect(throws: GitbayError.self) { try await client.listDevices(ifNoneMatch: nil) })
        #expect(error.kind == .transport(.timedOut(.request, limit: .milliseconds(300))))
        #expect(error.isRetryable)
    }

    @Test("cancelling the task aborts a hung request")
    func cancellation() async throws {
        let server = try FakeGitbayServer()
        defer { server.stop() }
        let client = try TestClients.make(server, token: server.mintToken(for: "alice"), requestTimeout: .seconds(60))
        server.inject(.hang, command: "whoami")
        let task = Task { () throws(GitbayError) -> WhoAmI in try await client.whoami() }
        while server.requests().isEmpty { try await Task.sleep(for: .milliseconds(10)) }
        task.cancel()
        let error = try #require(await #expect(throws: GitbayError.self) { try await task.value })
        #expect(error.kind == .transport(.cancelled))
        #expect(client.requestCount == 1)
    }

    @Test("cancelling during the wait before a retry ends it at once, with nothing more sent")
    func cancellationWhileWaiting() async throws {
        let server = try FakeGitbayServer()
        defer { server.stop() }
        let client = try TestClients.make(server, token: server.mintToken(for: "alice"), retry: RetryPolicy(maxRetryAfter: .seconds(60)))
        server.inject(.rateLimited(retryAfter: 30), command: "whoami")
        let task = Task { () throws(GitbayError) -> WhoAmI in try await client.whoami() }
        while server.requests().isEmpty { try await Task.sleep(for: .milliseconds(10)) }
        try await Task.sleep(for: .milliseconds(100))
        let cancelledAt = ContinuousClock.now
        task.cancel()
        let error = try #require(await #expect(throws: GitbayError.self) { try await task.value })
        #expect(error.kind == .transport(.cancelled))
        #expect(cancelledAt.duration(to: .now) < .seconds(20), "not after the 30 s wait")
        #expect(server.requests().count == 1)
        #expect(client.requestCount == 1)
    }

    @Test("a command started with a completion and cancelled ends once, cancelled")
    func startedAndCancelled() async throws {
        let server = try FakeGitbayServer()
        defer { server.stop() }
        let client = try TestClients.make(server, token: server.mintToken(for: "alice"), requestTimeout: .seconds(60))
        server.inject(.hang, command: "notifications device list")
        let answers = Mutex<[Result<DeviceList, GitbayError>]>([])
        let transfer = client.startListingDevices(ifNoneMatch: nil) { result in answers.withLock { $0.append(result) } }
        while server.requests().isEmpty { try await Task.sleep(for: .milliseconds(10)) }
        transfer.cancel()
        transfer.cancel()
        while answers.withLock({ $0.isEmpty }) { try await Task.sleep(for: .milliseconds(10)) }
        try await Task.sleep(for: .milliseconds(200))
        let ended = answers.withLock { $0 }
        #expect(ended.count == 1)
        guard case .failure(let error) = ended.first else {
            Issue.record("expected a failure, got \(ended)")
            return
        }
        #expect(error.kind == .transport(.cancelled))
    }

    @Test("an answer past the size limit aborts the transfer")
    func tooLarge() async throws {
        let server = try FakeGitbayServer()
        defer { server.stop() }
        let client = try TestClients.make(server, token: server.mintToken(for: "alice"), maxResponseBytes: 256, retry: .never)
        for index in 0..<10 {
            server.insertDevice(owner: "alice", token: "token-\(index)-0123456789", label: "device \(index)")
        }
        let error = try #require(await #expect(throws: GitbayError.self) { try await client.listDevices(ifNoneMatch: nil) })
        #expect(error.kind == .transport(.responseTooLarge(limit: 256)))
    }

    @Test("a redirect is not followed and the second host never sees the token")
    func redirect() async throws {
        let server = try FakeGitbayServer()
        let elsewhere = try FakeGitbayServer()
        defer {
            server.stop()
            elsewhere.stop()
        }
        let token = server.mintToken(for: "alice")
        let client = try TestClients.make(server, token: token)
        let target = elsewhere.baseURL + "/api/v1/read"
        server.inject(.status(302, body: "", headers: ["Location": target + "?argv=whoami"]), command: "whoami")
        let error = try #require(await #expect(throws: GitbayError.self) { try await client.whoami() })
        #expect(error.kind == .transport(.redirect(status: 302, target: target)))
        #expect(error.description.contains(target))
        #expect(elsewhere.requests().isEmpty)
        #expect(client.requestCount == 1)
    }

    // MARK: Retries

    @Test("a 503 with Retry-After then success takes two requests")
    func retryAfter503() async throws {
        let server = try FakeGitbayServer()
        defer { server.stop() }
        let client = try TestClients.make(server, token: server.mintToken(for: "alice"))
        server.inject(.status(503, body: #"{"protocol_version":1,"error":"busy"}"#, headers: ["Retry-After": "0"]), command: "whoami")
        #expect(try await client.whoami().username == "alice")
        #expect(client.requestCount == 2)
        #expect(server.requests().map(\.status) == [503, 200])
    }

    @Test(
        "transient faults are retried up to the attempt limit",
        arguments: [
            (1, 2, true), (2, 3, true), (3, 3, false),
        ])
    func transientRetries(faults: Int, requests: Int, succeeds: Bool) async throws {
        let server = try FakeGitbayServer()
        defer { server.stop() }
        let client = try TestClients.make(server, token: server.mintToken(for: "alice"))
        server.inject(.status(502, body: "<html>bad gateway</html>"), command: "notifications device list", times: faults)
        do {
            _ = try await client.listDevices(ifNoneMatch: nil)
            #expect(succeeds)
        } catch {
            #expect(!succeeds)
            #expect(error.httpStatus == 502)
        }
        #expect(client.requestCount == requests)
    }

    @Test("a reset, then the write limit, then success: device add is retried safely")
    func addRetried() async throws {
        let server = try FakeGitbayServer()
        defer { server.stop() }
        let client = try TestClients.make(server, token: server.mintToken(for: "alice"))
        server.inject(.reset, command: "notifications device add")
        server.inject(.writeLimited(seconds: 0), command: "notifications device add")
        let result = try await client.addDevice(token: Secret(GitbayClientTests.pushToken), label: "laptop")
        #expect(result.id != nil)
        #expect(server.devices(of: "alice").count == 1)
        #expect(client.requestCount == 3)
    }

    @Test("non-retryable answers are sent once", arguments: [ClientCall.add, .whoami])
    func notRetried(call: ClientCall) async throws {
        let server = try FakeGitbayServer()
        defer { server.stop() }
        let client = try TestClients.make(server, token: server.mintToken(for: "alice", scope: .read))
        server.apiEnabled = call == .whoami ? false : true
        _ = await #expect(throws: GitbayError.self) { try await call.run(client) }
        #expect(client.requestCount == 1)
    }
}
