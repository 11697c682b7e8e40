import GitbayCurl
import GitbayFake
import TestSupport
import Testing

@testable import GitbayAPI
@testable import GitbaySupport

/// A transport's curl handles carry one request after another without being reset: each
/// request sets every option it uses, and the receive buffer is libcurl's smallest. What one
/// request set never reaches the next, and an answer many times that buffer arrives whole,
/// over HTTP/2 and over HTTP/1.1.
@Suite("curl handles reused between requests")
struct ReusedHandleTests {
    static let pushToken = "3f2a9c01d4e5f60718293a4b5c6d7e8f3f2a9c01d4e5f60718293a4b5c6d7e8f"

    @Test(
        "requests of either method in turn on one handle send their own method and body, and a long list arrives whole",
        arguments: ["h2", "http/1.1"])
    func methodsInTurn(_ alpn: String) async throws {
        let server = try FakeGitbayServer()
        defer { server.stop() }
        let front = try TLSFront(upstream: server.baseURL, alpn: alpn)
        defer { front.stop() }
        let token = server.mintToken(for: "alice")
        // 300 rows of about 150 bytes: an answer some 40 times the receive buffer.
        let labels = (0..<300).map { "row \($0) " + String(repeating: "x", count: 60) }
        for (index, label) in labels.enumerated() {
            _ = server.insertDevice(owner: "alice", token: String(format: "%064x", index), label: label)
        }
        var configuration = ClientConfiguration(
            transport: TransportConfiguration(connectTimeout: .seconds(10), requestTimeout: .seconds(60), maxResponseBytes: 1 << 20),
            retry: .never, http: CurlTransport(pool: ConnectionPool()))
        configuration.transport.certificateFile = front.certificateAuthority
        configuration.deadline = nil
        let instance = try InstanceURL(parsing: front.url)
        let client = GitbayClient(
            instance: instance, apiToken: Secret(token), accountName: "alice@\(instance.authority)", configuration: configuration,
            logger: .disabled)

        let id = try #require(try await client.addDevice(token: Secret(Self.pushToken), label: "laptop").id)
        guard case .list(let rows, _) = try await client.listDevices(ifNoneMatch: nil) else {
            Issue.record("expected a list")
            return
        }
        #expect(rows.count == 301 && Set(rows.map(\.label)) == Set(labels + ["laptop"]))
        #expect(try await client.removeDevice(id: id) == .removed)
        guard case .list(let after, _) = try await client.listDevices(ifNoneMatch: nil) else {
            Issue.record("expected a list")
            return
        }
        #expect(after.count == 300)
        #expect(try await client.whoami().username == "alice")

        let sent = server.requests()
        #expect(sent.map(\.method) == ["POST", "GET", "POST", "GET", "GET"])
        #expect(sent.map { $0.argv.prefix(3).joined(separator: " ") }.first == "notifications device add")
        #expect(sent[0].stdin == Self.pushToken)
        // The GETs carry no body, whatever the POST before them sent.
        for request in sent where request.method == "GET" {
            #expect(request.stdin == nil && request.headers["content-length"] == nil, "\(request)")
        }
        #expect(sent[2].stdin == nil && sent[2].argv.contains(String(id)))
    }
}

/// The options a handle keeps from one request to the next are set again when what they come
/// from changes: a request's own limits apply, not those of the request before it.
@Suite("curl handles reused with other limits")
struct ReusedHandleLimitsTests {
    @Test("a shorter timeout than the last request's on the same handle is the one that applies")
    func shorterTimeoutApplies() async throws {
        let server = try FakeGitbayServer()
        defer { server.stop() }
        let token = server.mintToken(for: "alice")
        let transport = CurlTransport(pool: ConnectionPool())
        let url = server.baseURL + "/api/v1/read?argv=notifications&argv=device&argv=list"
        let request = HTTPRequest(method: "GET", url: url, headers: [("Authorization", "Bearer " + token)])
        let patient = TransportConfiguration(connectTimeout: .seconds(5), requestTimeout: .seconds(20), maxResponseBytes: 1 << 20)
        let hasty = TransportConfiguration(connectTimeout: .seconds(5), requestTimeout: .milliseconds(300), maxResponseBytes: 1 << 20)

        server.latency = .milliseconds(600)
        #expect(try await transport.send(request, limits: patient).status == 200)
        // One request at a time: the same kept handle carries the next.
        do {
            let response = try await transport.send(request, limits: hasty)
            Issue.record("the 300 ms limit did not apply: answered \(response.status) after the server's 600 ms")
        } catch {
            guard case .timedOut = error else {
                Issue.record("expected a timeout, got \(error)")
                return
            }
        }
        #expect(try await transport.send(request, limits: patient).status == 200)
    }
}
