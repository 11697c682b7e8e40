import GitbaySupport
import Synchronization

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The gitbay JSON API for one account, for one run: typed commands over `POST /api/v1/cmd` and
/// `GET /api/v1/read`, retried by the configured `RetryPolicy`.
///
/// It talks to `instance` only, over connections of `configuration.connections` that it may
/// share with other accounts' clients of the same instance, and sends the API token only in the
/// `Authorization` header: never in a URL, a log line or an error.
///
/// Every command can be started with a completion (`start`) or awaited: a run's accounts are
/// carried out from completions, with no task waiting on their requests.
package final class GitbayClient: Sendable {
    package let instance: InstanceURL
    /// The account, as `user@host`; names the account in errors and log lines.
    package let accountName: String
    let apiToken: Secret
    /// One for every client of a run (`SharedClientConfiguration`): a client is made for each
    /// account, and a copy of its own would hold some 200 bytes more per request in flight.
    private let shared: SharedClientConfiguration
    var configuration: ClientConfiguration { _read { yield shared.configuration } }
    let logger: Logger
    let transport: any HTTPTransport
    private let state: Mutex<State>

    /// What the client's requests change.
    private struct State {
        var requestCount = 0
        /// When the first request started: the configuration's deadline counts from it.
        var firstAttemptAt: ContinuousClock.Instant?
        /// Every secret this client has sent, redacted from any server message it reports.
        var sentSecrets: [Secret]
    }

    package convenience init(
        instance: InstanceURL,
        apiToken: Secret,
        accountName: String,
        configuration: ClientConfiguration,
        logger: Logger
    ) {
        self.init(
            instance: instance, apiToken: apiToken, accountName: accountName, configuration: SharedClientConfiguration(configuration),
            logger: logger)
    }

    /// A client with a configuration it shares with others.
    package init(
        instance: InstanceURL,
        apiToken: Secret,
        accountName: String,
        configuration: SharedClientConfiguration,
        logger: Logger
    ) {
        self.instance = instance
        self.accountName = accountName
        self.apiToken = apiToken
        state = Mutex(State(sentSecrets: [apiToken]))
        shared = configuration
        self.logger = logger.with(["account.name": accountName])
        transport = configuration.configuration.http
    }

    /// HTTP requests sent so far, retries included.
    package var requestCount: Int { state.withLock { $0.requestCount } }

    /// Adds a secret this client learnt (a token a server minted for it) to those redacted from
    /// any server message it reports.
    func noteSecret(_ secret: Secret) {
        state.withLock { state in
            if !state.sentSecrets.contains(secret) { state.sentSecrets.append(secret) }
        }
    }

    /// The secrets to redact from a server's message.
    var sentSecrets: [Secret] { state.withLock { $0.sentSecrets } }

    /// Counts a request sent.
    func countRequest() {
        state.withLock { $0.requestCount += 1 }
    }

    /// When the first request started, if one did.
    var firstAttemptAt: ContinuousClock.Instant? { state.withLock { $0.firstAttemptAt } }

    /// When the deadline started: `now` if no request was sent yet.
    func deadlineStart(now: ContinuousClock.Instant) -> ContinuousClock.Instant {
        state.withLock { state in
            let start = state.firstAttemptAt ?? now
            state.firstAttemptAt = start
            return start
        }
    }

    /// The answer's header fields a client reads: a list's `ETag` and a limit's `Retry-After`
    /// (`ServerAnswer`). Others are not kept.
    static let responseHeaders: Set<String> = ["etag", "retry-after"]

    // MARK: Commands

    /// `whoami`: checks the token and learns the canonical user name.
    package func whoami() async throws(GitbayError) -> WhoAmI {
        try await awaiting { startWhoami(completion: $0) }
    }

    /// Proves the token may write, changing nothing: `device add` with no token on stdin is
    /// refused as a usage error (exit 2) for a token that may write, and as denied (exit 4)
    /// for a read-only one, which the dispatcher turns away before reading the arguments.
    /// Unlike removing a missing id (exit 3), a usage error leaves no "refused" entry in the
    /// account's audit log.
    package func checkWriteScope() async throws(GitbayError) {
        let words = ["notifications", "device", "add"]
        do {
            _ = try await answer(to: .write(argv: words, stdin: nil), command: words)
        } catch  where error.kind == .usage || error.kind == .pushDisabled {
            // Both come from past the scope check.
        }
    }

    /// `notifications settings show`.
    package func settings() async throws(GitbayError) -> NotificationSettings {
        let words = ["notifications", "settings", "show"]
        let response = try await answer(to: .read(argv: words, ifNoneMatch: nil), command: words)
        guard let settings = try decode(NotificationSettings.self, from: response, command: words) else {
            throw GitbayError(kind: .malformed, account: accountName, command: words, httpStatus: response.status)
        }
        return settings
    }

    /// `notifications settings push on|off`, returning the settings afterwards.
    package func setPush(_ on: Bool) async throws(GitbayError) -> NotificationSettings {
        let words = ["notifications", "settings", "push"]
        let response = try await answer(to: .write(argv: words + [on ? "on" : "off"], stdin: nil), command: words)
        // The answer's data is the settings on servers that return them; otherwise ask.
        if let decoded = try? JSONDecoder().decode(DataEnvelope<NotificationSettings>.self, from: Data(response.body)).data {
            return decoded
        }
        return try await settings()
    }
}
