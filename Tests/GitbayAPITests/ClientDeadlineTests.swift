import Foundation
import GitbayFake
import TestSupport
import Testing

@testable import GitbayAPI
@testable import GitbayCurl
@testable import GitbaySupport

/// One deadline for all of a client's requests together, retries included: an attempt gets at
/// most what is left of it, no retry starts past it, and no request is sent once it is over.
/// Shown by counting the requests the server saw, never by timing the slow path.
@Suite("GitbayClient deadline")
struct ClientDeadlineTests {
    static func client(
        _ server: FakeGitbayServer, requestTimeout: Duration, deadline: Duration?, retry: RetryPolicy = TestClients.fastRetry
    ) throws -> GitbayClient {
        let instance = try InstanceURL(parsing: server.baseURL)
        var configuration = ClientConfiguration(
            transport: TransportConfiguration(connectTimeout: .seconds(2), requestTimeout: requestTimeout), retry: retry,
            http: CurlTransport.shared)
        configuration.deadline = deadline
        return GitbayClient(
            instance: instance, apiToken: Secret(server.mintToken(for: "alice")), accountName: "alice@\(instance.authority)",
            configuration: configuration, logger: .disabled)
    }

    @Test("a hung server gets one attempt, cut off at the deadline, not three request timeouts")
    func hungServer() async throws {
        let server = try FakeGitbayServer()
        defer { server.stop() }
        let client = try Self.client(server, requestTimeout: .seconds(3), deadline: .milliseconds(400))
        server.inject(.hang, command: "whoami", times: 10)
        let error = try #require(await #expect(throws: GitbayError.self) { try await client.whoami() })
        #expect(error.kind == .transport(.timedOut(.deadline, limit: .milliseconds(400))))
        #expect(error.description.contains("the requests took longer than the account's 400ms deadline"), "\(error)")
        #expect(server.requests().count == 1)
        #expect(client.requestCount == 1)

        // Once the deadline is over, nothing more is sent.
        let next = try #require(await #expect(throws: GitbayError.self) { try await client.settings() })
        #expect(next.kind == .transport(.timedOut(.deadline, limit: .milliseconds(400))))
        #expect(server.requests().count == 1)
        #expect(client.requestCount == 1)
    }

    @Test("a retry that would start past the deadline is not made: the last failure is the answer")
    func retryPastDeadline() async throws {
        let server = try FakeGitbayServer()
        defer { server.stop() }
        let retry = RetryPolicy(maxAttempts: 3, baseDelay: .zero, maxDelay: .zero, maxRetryAfter: .seconds(5), jitter: .none)
        let client = try Self.client(server, requestTimeout: .seconds(3), deadline: .seconds(1), retry: retry)
        server.inject(.rateLimited(retryAfter: 2), command: "whoami", times: 10)
        let error = try #require(await #expect(throws: GitbayError.self) { try await client.whoami() })
        #expect(error.kind == .rateLimited(retryAfter: .seconds(2)))
        #expect(server.requests().count == 1)
    }

    @Test("retries that fit in the deadline are made, and a request timeout inside it stays a request timeout")
    func retriesWithin() async throws {
        let server = try FakeGitbayServer()
        defer { server.stop() }
        // A deadline no loaded machine runs into: what it holds is that the deadline, far from
        // over, leaves every attempt its request timeout and the timeout its own name.
        let client = try Self.client(server, requestTimeout: .milliseconds(200), deadline: .seconds(900))
        server.inject(.hang, command: "whoami", times: 2)
        #expect(try await client.whoami().username == "alice")
        #expect(server.requests().count == 3)
        server.inject(.hang, command: "whoami", times: 10)
        let error = try #require(await #expect(throws: GitbayError.self) { try await client.whoami() })
        #expect(error.kind == .transport(.timedOut(.request, limit: .milliseconds(200))))
    }

    @Test("the default deadline is 30 s; nil sets none")
    func defaults() {
        #expect(ClientConfiguration(http: CurlTransport.shared).deadline == .seconds(30))
        #expect(ClientConfiguration.defaultDeadline == .seconds(30))
    }
}
