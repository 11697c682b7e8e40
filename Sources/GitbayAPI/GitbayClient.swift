import GitbaySupport

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
package actor GitbayClient {
    package nonisolated let instance: InstanceURL
    /// The account, as `user@host`; names the account in errors and log lines.
    package nonisolated let accountName: String
    let apiToken: Secret
    let configuration: ClientConfiguration
    let logger: Logger
    let transport: any HTTPTransport

    /// HTTP requests sent so far, retries included.
    package internal(set) var requestCount = 0
    /// When the first request started: the configuration's deadline counts from it.
    var firstAttemptAt: ContinuousClock.Instant?
    /// Every secret this client has sent, redacted from any server message it reports.
    private(set) var sentSecrets: [Secret]

    package init(
        instance: InstanceURL,
        apiToken: Secret,
        accountName: String,
        configuration: ClientConfiguration,
        logger: Logger
    ) {
        self.instance = instance
        self.accountName = accountName
        self.apiToken = apiToken
        sentSecrets = [apiToken]
        self.configuration = configuration
        self.logger = logger.with(["account.name": accountName])
        transport = configuration.http
    }

    /// Adds a secret this client learnt (a token a server minted for it) to those redacted from
    /// any server message it reports.
    func noteSecret(_ secret: Secret) {
        if !sentSecrets.contains(secret) { sentSecrets.append(secret) }
    }

    /// The answer's header fields a client reads: a list's `ETag` and a limit's `Retry-After`
    /// (`ServerAnswer`). Others are not kept.
    static let responseHeaders: Set<String> = ["etag", "retry-after"]

    // MARK: Commands

    /// `whoami`: checks the token and learns the canonical user name.
    package func whoami() async throws(GitbayError) -> WhoAmI {
        let words = ["whoami"]
        let response = try await answer(to: .read(argv: words, ifNoneMatch: nil), command: words)
        guard let whoAmI = try decode(WhoAmI.self, from: response, command: words) else {
            throw GitbayError(kind: .malformed, account: accountName, command: words, httpStatus: response.status)
        }
        return whoAmI
    }

    /// `notifications device add --label <label>` with the push token on stdin. The label is
    /// always sent: re-adding without one resets it. Safe to retry: the server upserts on the token.
    package func addDevice(token: Secret, label: String) async throws(GitbayError) -> DeviceAddResult {
        let words = ["notifications", "device", "add"]
        let call = Call.write(argv: words + ["--label", label], stdin: token)
        if !sentSecrets.contains(token) { sentSecrets.append(token) }
        let response = try await answer(to: call, command: words)
        // v1.32.0 answers without an id; a server omitting empty data gives none either.
        return try decode(DeviceAddResult.self, from: response, command: words) ?? DeviceAddResult(id: nil)
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

    /// `notifications device list` over `GET /api/v1/read`; `.notModified` when `etag` still
    /// matches. `ahead`: its first exchange, sent with the same tag (`startListAhead`).
    package func listDevices(ifNoneMatch etag: String?, ahead: ListAhead? = nil) async throws(GitbayError) -> DeviceList {
        let words = Self.listWords
        precondition(ahead == nil || ahead?.etag == etag, "a list sent ahead with another tag")
        switch try await send(.read(argv: words, ifNoneMatch: etag), command: words, ahead: ahead) {
        case .notModified(let status):
            guard etag != nil else {
                // A 304 to an unconditional request is not an answer this client can use.
                throw GitbayError(kind: .malformed, account: accountName, command: words, httpStatus: status)
            }
            return .notModified
        case .answer(let response):
            let devices = try decode([ServerDevice].self, from: response, command: words) ?? []
            return .list(devices, etag: ServerAnswer.entityTag(response.headers["etag"]))
        }
    }

    /// `notifications device remove <id>`; a 404 (missing, or another user's) means already gone.
    package func removeDevice(id: Int) async throws(GitbayError) -> RemoveOutcome {
        let words = ["notifications", "device", "remove"]
        do {
            _ = try await answer(to: .write(argv: words + [String(id)], stdin: nil), command: words)
            return .removed
        } catch  where error.kind == .notFound {
            return .alreadyGone
        }
    }

    /// `token revoke <name>`: the token of that name stops working, this client's own included
    /// (the request that revokes it still succeeds). Since v1.30.0 a full-scope token may run it.
    package func revokeToken(named name: String) async throws(GitbayError) {
        let words = ["token", "revoke"]
        _ = try await answer(to: .write(argv: words + [name], stdin: nil), command: words)
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
