import GitbaySupport

/// Why a gitbay command failed for one account. Carries values only: the account, the command
/// words, the HTTP status, the `exit_code` and the server's message (with anything token-like
/// redacted), never a header or a request body.
package struct GitbayError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong, as far as a caller needs to act on it.
    package enum Kind: Sendable, Equatable {
        /// 401: the API token is missing, unknown, expired or revoked.
        case authFailed
        /// 403 / exit 4: the token has `read` scope and the command writes.
        case readOnlyToken
        /// 403 / exit 4 `too many writes`: the per-account write limit; the wait is from the message.
        case writeLimited(retryAfter: Duration?)
        /// Any other 403 / exit 4 (a disabled or unverified account, ...).
        case denied
        /// 429, or 503 with `Retry-After`: the API limiter.
        case rateLimited(retryAfter: Duration?)
        /// 404 / exit 3 with a gitbay answer.
        case notFound
        /// exit 1 / 500: the instance has push notifications turned off.
        case pushDisabled
        /// exit 2 / 400: the server did not accept the command line.
        case usage
        /// Any other failure the server reported (another `exit_code`, a 5xx).
        case serverFailure
        /// The body is not JSON: an HTML page (the API is off, or a proxy answered) or other text.
        case notJSON
        /// The body is JSON but not a gitbay answer: truncated, not an object, or missing fields.
        case malformed
        /// The answer speaks another major protocol version.
        case protocolVersion(Int)
        /// No answer at all.
        case transport(TransportError)

        /// A stable name for log metadata (`error.kind`).
        var logName: String {
            switch self {
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
    }

    package let kind: Kind
    /// The account, as `user@host`.
    package let account: String
    /// The command words, e.g. `["notifications", "device", "add"]`; never argument values.
    package let command: [String]
    package let httpStatus: Int?
    package let exitCode: Int?
    /// The server's `error` text, token-like words redacted; nil when there was none.
    package let serverMessage: String?

    package init(
        kind: Kind,
        account: String,
        command: [String],
        httpStatus: Int? = nil,
        exitCode: Int? = nil,
        serverMessage: String? = nil
    ) {
        self.kind = kind
        self.account = account
        self.command = command
        self.httpStatus = httpStatus
        self.exitCode = exitCode
        self.serverMessage = serverMessage.map { Self.redactingTokens(in: $0) }
    }

    /// True when sending the same request again may succeed: connection failures, timeouts,
    /// 429, 502, 503, 504 and the write limit.
    package var isRetryable: Bool {
        switch kind {
        case .transport(let error): error.isRetryable
        case .rateLimited, .writeLimited: true
        case .serverFailure: httpStatus.map { [502, 503, 504].contains($0) } ?? false
        case .authFailed, .readOnlyToken, .denied, .notFound, .pushDisabled, .usage, .notJSON, .malformed,
            .protocolVersion:
            false
        }
    }

    /// The wait the server asked for, from `Retry-After` or the write limit's message.
    package var retryAfter: Duration? {
        switch kind {
        case .rateLimited(let wait), .writeLimited(let wait): wait
        default: nil
        }
    }

    /// Says what failed and, where no program's command is needed for it, what the user can
    /// do; never that something will retry it: the same error ends a sign-in (which nothing
    /// retries) and a run (which the next run retries). The caller says which, and adds the
    /// step its own interface offers for a token to replace (a sign-in command, a screen).
    package var description: String {
        let commandText = command.isEmpty ? "the request" : "`\(command.joined(separator: " "))`"
        var answer: [String] = []
        if let httpStatus { answer.append("HTTP \(httpStatus)") }
        if let exitCode { answer.append("exit_code \(exitCode)") }
        if let serverMessage, !serverMessage.isEmpty { answer.append(Self.shortened(serverMessage)) }
        let said = answer.isEmpty ? "" : " (\(answer.joined(separator: ", ")))"
        let head = "\(account): \(commandText) failed"
        switch kind {
        case .authFailed:
            return "\(head): the API token is no longer valid\(said)."
        case .readOnlyToken:
            return "\(head): the API token is read-only\(said); this needs a full-scope one."
        case .writeLimited(let wait):
            return "\(head): the account's write limit is reached\(said)\(Self.wait(wait, for: "the server takes writes again after"))."
        case .denied:
            return "\(head): the server denied it\(said). Check that the account is enabled and verified."
        case .rateLimited(let wait):
            return "\(head): the server is rate limiting this account\(said)\(Self.wait(wait, for: "it asks to wait"))."
        case .notFound where exitCode == nil:
            // Refused before dispatch: the server does not know the command at all.
            return "\(head): the server does not know this command\(said); it is older than gitbay's device commands. Ask its admin to upgrade."
        case .notFound:
            return "\(head): not found\(said)."
        case .pushDisabled:
            return "\(head): this instance does not send push notifications\(said). Ask its admin to enable [push]."
        case .usage:
            return "\(head): the server rejected the command line\(said). This client has a bug, or the server is too old for it; please report it."
        case .serverFailure:
            return "\(head): the server reported a failure\(said)."
        case .notJSON:
            return
                "\(head): the answer is not JSON\(said). Check that the URL is a gitbay server with `[api] enabled = true`, and any proxy in front of it."
        case .malformed:
            return "\(head): the answer is not a valid gitbay reply\(said). A proxy may have cut it short."
        case .protocolVersion(let version):
            return "\(head): the server speaks API protocol version \(version), this client speaks 1\(said); it needs a newer client."
        case .transport(.tlsFailed(let detail)):
            return
                "\(head): \(TransportError.tlsFailed(detail: detail))\(said). Check the instance's certificate; for an authority of your own, name it with SSL_CERT_FILE or SSL_CERT_DIR."
        case .transport(.libcurlUnavailable(let path, let detail)):
            return "\(head): \(TransportError.libcurlUnavailable(path: path, detail: detail)); \(TransportError.libcurlFix)."
        case .transport(let error):
            return "\(head): \(error)\(said). Check the network and the instance address."
        }
    }

    /// `; <what> <wait>` when the server named a wait; a wait at the longest one a server's
    /// number is read as says "or more", since the server may have asked for longer.
    private static func wait(_ wait: Duration?, for what: String) -> String {
        guard let wait else { return "" }
        return "; \(what) \(wait.shortDescription)\(wait >= ServerAnswer.longestWait ? " or more" : "")"
    }

    private static func shortened(_ message: String) -> String {
        let limit = 300
        let oneLine = message.split(whereSeparator: \.isNewline).joined(separator: " ")
        return oneLine.count <= limit ? oneLine : String(oneLine.prefix(limit)) + "…"
    }

    /// `text` with every word that looks like an API token (`gb_` and what follows) replaced.
    /// The server does not echo tokens; this guards against one that does.
    package static func redactingTokens(in text: String) -> String {
        var result = ""
        var rest = Substring(text)
        while let start = rest.firstRange(of: "gb_") {
            result += rest[..<start.lowerBound]
            let tail = rest[start.upperBound...]
            let end =
                tail.firstIndex(where: { !($0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_" || $0 == "-")) })
                ?? tail.endIndex
            // `gb_` followed by nothing token-like (a token redacted already) stays as it is.
            result += end == tail.startIndex ? "gb_" : "gb_<redacted>"
            rest = tail[end...]
        }
        return result + rest
    }
}
