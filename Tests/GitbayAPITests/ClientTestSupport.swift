import Foundation
import GitbayFake
import TestSupport

@testable import GitbayAPI
@testable import GitbayCurl
@testable import GitbaySupport

/// Collects log lines for assertions.
///
/// `@unchecked Sendable` invariant: `lines` is only read or written under `lock`.
final class LogCapture: @unchecked Sendable {
    private let lock = NSLock()
    private var lines: [String] = []

    var logger: Logger {
        Logger(minimumLevel: .trace) { [self] record in
            let line = Logger.format(record)
            lock.withLock { lines.append(line) }
        }
    }

    var all: [String] {
        lock.withLock { lines }
    }
}

/// Clients for tests: short timeouts and no backoff, so a test never waits on a real schedule.
enum TestClients {
    static let fastRetry = RetryPolicy(maxAttempts: 3, baseDelay: .zero, maxDelay: .zero, maxRetryAfter: .seconds(2), jitter: .none)

    static func make(
        _ server: FakeGitbayServer,
        token: String,
        user: String = "alice",
        requestTimeout: Duration = .seconds(5),
        maxResponseBytes: Int = 1 << 20,
        retry: RetryPolicy = fastRetry,
        connections: ConnectionPool = .shared,
        deadline: Duration? = nil,
        logger: Logger = .disabled
    ) throws -> GitbayClient {
        let instance = try InstanceURL(parsing: server.baseURL)
        var configuration = ClientConfiguration(
            transport: TransportConfiguration(connectTimeout: .seconds(2), requestTimeout: requestTimeout, maxResponseBytes: maxResponseBytes),
            retry: retry, http: CurlTransport(pool: connections))
        configuration.deadline = deadline
        return GitbayClient(
            instance: instance,
            apiToken: Secret(token),
            accountName: "\(user)@\(instance.authority)",
            configuration: configuration, logger: logger)
    }
}
