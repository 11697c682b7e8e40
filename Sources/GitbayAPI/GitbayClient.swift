import FoundationEssentials
import GitbaySupport

/// The gitbay JSON API for one account, for one run: typed commands over `POST /api/v1/cmd` and
/// `GET /api/v1/read`, retried by the configured `RetryPolicy`.
///
/// It talks to `instance` only, over its own connection, and sends the API token only in the
/// `Authorization` header: never in a URL, a log line or an error.
package actor GitbayClient {
    package nonisolated let instance: InstanceURL
    /// The account, as `user@host`; names the account in errors and log lines.
    package nonisolated let accountName: String
    private let apiToken: Secret
    private let configuration: ClientConfiguration
    private let logger: Logger
    private let transport: CurlTransport

    /// HTTP requests sent so far, retries included.
    package private(set) var requestCount = 0
    /// Every secret this client has sent, redacted from any server message it reports.
    private var sentSecrets: [Secret]

    package init(
        instance: InstanceURL,
        apiToken: Secret,
        accountName: String,
        configuration: ClientConfiguration = .init(),
        logger: Logger
    ) {
        self.instance = instance
        self.accountName = accountName
        self.apiToken = apiToken
        sentSecrets = [apiToken]
        self.configuration = configuration
        self.logger = logger.with(["account.name": accountName])
        transport = CurlTransport(configuration: configuration.transport)
    }

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
        let call = Call.command(argv: words + ["--label", label], stdin: token)
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
            _ = try await answer(to: .command(argv: words, stdin: nil), command: words)
        } catch where error.kind == .usage || error.kind == .pushDisabled {
            // Both come from past the scope check.
        }
    }

    /// `notifications device list` over `GET /api/v1/read`; `.notModified` when `etag` still matches.
    package func listDevices(ifNoneMatch etag: String?) async throws(GitbayError) -> DeviceList {
        let words = ["notifications", "device", "list"]
        switch try await send(.read(argv: words, ifNoneMatch: etag), command: words) {
        case .notModified(let status):
            guard etag != nil else {
                // A 304 to an unconditional request is not an answer this client can use.
                throw GitbayError(kind: .malformed, account: accountName, command: words, httpStatus: status)
            }
            return .notModified
        case .answer(let response):
            let devices = try decode([ServerDevice].self, from: response, command: words) ?? []
            return .list(devices, etag: response.headers["etag"])
        }
    }

    /// `notifications device remove <id>`; a 404 (missing, or another user's) means already gone.
    package func removeDevice(id: Int) async throws(GitbayError) -> RemoveOutcome {
        let words = ["notifications", "device", "remove"]
        do {
            _ = try await answer(to: .command(argv: words + [String(id)], stdin: nil), command: words)
            return .removed
        } catch where error.kind == .notFound {
            return .alreadyGone
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
        let response = try await answer(to: .command(argv: words + [on ? "on" : "off"], stdin: nil), command: words)
        // The answer's data is the settings on servers that return them; otherwise ask.
        let decoded: NotificationSettings?
        do {
            decoded = try JSONDecoder().decode(DataEnvelope<NotificationSettings>.self, from: Data(response.body)).data
        } catch {
            decoded = nil
        }
        if let decoded { return decoded }
        return try await settings()
    }

    // MARK: Requests

    /// The two routes of the API.
    private enum Call {
        /// `GET /api/v1/read?argv=...`, for read-only commands.
        case read(argv: [String], ifNoneMatch: String?)
        /// `POST /api/v1/cmd` with `{"argv": [...], "stdin": "..."}`.
        case command(argv: [String], stdin: Secret?)
    }

    private enum Reply {
        case notModified(status: Int)
        case answer(HTTPResponse)
    }

    /// The request body of `POST /api/v1/cmd`.
    private struct CommandBody: Encodable {
        let argv: [String]
        let stdin: String?
    }

    /// Sends `call` and returns a successful answer; a `304` here is malformed.
    private func answer(to call: Call, command: [String]) async throws(GitbayError) -> HTTPResponse {
        switch try await send(call, command: command) {
        case .answer(let response):
            return response
        case .notModified(let status):
            throw GitbayError(kind: .malformed, account: accountName, command: command, httpStatus: status)
        }
    }

    /// Sends `call`, retrying as the policy allows, and returns the first answer that is not an error.
    private func send(_ call: Call, command: [String]) async throws(GitbayError) -> Reply {
        let request = makeRequest(call)
        let commandText = command.joined(separator: " ")
        var attempt = 0
        while true {
            attempt += 1
            requestCount += 1
            logger.debug("gitbay.request", [
                "gitbay.command": commandText, "http.method": request.method, "request.attempt": String(attempt),
            ])
            let failure: GitbayError
            do throws(GitbayError) {
                return try await exchange(request, command: command)
            } catch {
                failure = error
            }
            let delay = configuration.retry.delay(afterAttempt: attempt, failedWith: failure, unitRandom: configuration.random())
            guard let delay else {
                logger.info("gitbay.request.failed", metadata(of: failure, command: commandText, attempt: attempt))
                throw failure
            }
            var retryMetadata = metadata(of: failure, command: commandText, attempt: attempt)
            retryMetadata["retry.delay_ms"] = String(delay.roundedUpMilliseconds)
            logger.info("gitbay.request.retrying", retryMetadata)
            do {
                try await Task.sleep(for: delay)
            } catch {
                throw GitbayError(kind: .transport(.cancelled), account: accountName, command: command)
            }
        }
    }

    /// One HTTP exchange, classified.
    private func exchange(_ request: HTTPRequest, command: [String]) async throws(GitbayError) -> Reply {
        let response: HTTPResponse
        do throws(TransportError) {
            if let gate = configuration.gate, !gate.mayStart() { throw .cancelled }
            response = try await transport.send(request)
            if let gate = configuration.gate, !gate.mayFinish() { throw .cancelled }
        } catch {
            throw GitbayError(kind: .transport(error), account: accountName, command: command)
        }
        logger.debug("gitbay.response", ["gitbay.command": command.joined(separator: " "), "http.status": String(response.status)])
        switch ServerAnswer(status: response.status, headers: response.headers, body: response.body) {
        case .success:
            return .answer(response)
        case .notModified:
            return .notModified(status: response.status)
        case .failure(let kind, let exitCode, let message):
            throw GitbayError(
                kind: kind, account: accountName, command: command, httpStatus: response.status,
                exitCode: exitCode, serverMessage: message.map { redacting(sentSecrets, in: $0) }
            )
        }
    }

    private func makeRequest(_ call: Call) -> HTTPRequest {
        var headers: [(name: String, value: String)] = [
            ("Authorization", "Bearer " + apiToken.exposedValue),
            ("Accept", "application/json"),
        ]
        switch call {
        case .read(let argv, let etag):
            if let etag { headers.append(("If-None-Match", etag)) }
            let query = argv.map { "argv=" + Self.percentEncoded($0) }.joined(separator: "&")
            return HTTPRequest(method: "GET", url: instance.url(path: "/api/v1/read") + "?" + query, headers: headers)
        case .command(let argv, let stdin):
            headers.append(("Content-Type", "application/json"))
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.withoutEscapingSlashes]
            let body: Data
            do {
                body = try encoder.encode(CommandBody(argv: argv, stdin: stdin?.exposedValue))
            } catch {
                preconditionFailure("encoding an array of strings cannot fail: \(error)")
            }
            return HTTPRequest(method: "POST", url: instance.url(path: "/api/v1/cmd"), headers: headers, body: Array(body))
        }
    }

    /// Decodes the answer's `data`; nil when the server omitted it.
    private func decode<Payload: Decodable>(_ type: Payload.Type, from response: HTTPResponse, command: [String]) throws(GitbayError) -> Payload? {
        do {
            return try JSONDecoder().decode(DataEnvelope<Payload>.self, from: Data(response.body)).data
        } catch {
            throw GitbayError(kind: .malformed, account: accountName, command: command, httpStatus: response.status)
        }
    }

    private func metadata(of error: GitbayError, command: String, attempt: Int) -> [String: String] {
        var metadata = ["gitbay.command": command, "request.attempt": String(attempt), "error.kind": Self.name(of: error.kind)]
        if let status = error.httpStatus { metadata["http.status"] = String(status) }
        if let exitCode = error.exitCode { metadata["gitbay.exit_code"] = String(exitCode) }
        return metadata
    }

    /// A stable name for log metadata.
    private static func name(of kind: GitbayError.Kind) -> String {
        switch kind {
        case .authFailed: "auth-failed"
        case .readOnlyToken: "read-only-token"
        case .writeLimited: "write-limited"
        case .denied: "denied"
        case .rateLimited: "rate-limited"
        case .notFound: "not-found"
        case .pushDisabled: "push-disabled"
        case .usage: "usage"
        case .serverFailure: "server-failure"
        case .notJSON: "not-json"
        case .malformed: "malformed"
        case .protocolVersion: "protocol-version"
        case .transport: "transport"
        }
    }

    /// `text` with any of `secrets` replaced, in case a server echoes one.
    private func redacting(_ secrets: [Secret], in text: String) -> String {
        secrets.reduce(text) { text, secret in
            secret.exposedValue.isEmpty ? text : text.replacing(secret.exposedValue, with: "<redacted>")
        }
    }

    /// Percent-encodes everything but RFC 3986's unreserved characters.
    static func percentEncoded(_ text: String) -> String {
        var result = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."),
                 UInt8(ascii: "_"), UInt8(ascii: "~"):
                result.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let hex = Array("0123456789ABCDEF".utf8)
                result += String(decoding: [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]], as: UTF8.self)
            }
        }
        return result
    }
}
