import FoundationEssentials
import GitbaySupport

/// What a gitbay HTTP response means before its `data` is decoded: a success, a `304`, or a
/// failure classified into a `GitbayError.Kind`. A pure function of status, headers and body.
enum ServerAnswer: Sendable, Equatable {
    case success
    case notModified
    case failure(GitbayError.Kind, exitCode: Int?, message: String?)

    /// The messages that are the only signal for a case (PROTOCOL.md).
    static let writeLimitMarker = "too many writes"
    static let readOnlyMarker = "read-only"
    static let pushDisabledMarker = "does not send push notifications"

    init(status: Int, headers: [String: String], body: [UInt8]) {
        if status == 304 {
            self = .notModified
            return
        }
        let envelope: ResponseEnvelope?
        do {
            envelope = try JSONDecoder().decode(ResponseEnvelope.self, from: Data(body))
        } catch {
            envelope = nil
        }
        let exitCode = envelope?.exitCode
        let message = envelope?.error
        let retryAfter = headers["retry-after"].flatMap(Self.parseRetryAfter)

        // These statuses mean the same whoever wrote the body: the server, a proxy or a limiter.
        switch status {
        case 401:
            self = .failure(.authFailed, exitCode: exitCode, message: message)
            return
        case 429:
            self = .failure(.rateLimited(retryAfter: retryAfter), exitCode: exitCode, message: message)
            return
        case 503 where retryAfter != nil:
            self = .failure(.rateLimited(retryAfter: retryAfter), exitCode: exitCode, message: message)
            return
        case 502, 503, 504:
            self = .failure(.serverFailure, exitCode: exitCode, message: message)
            return
        default:
            break
        }

        // Everything else depends on the body, which must speak this client's protocol.
        if let envelope, envelope.protocolVersion != 1 {
            self = .failure(.protocolVersion(envelope.protocolVersion), exitCode: envelope.exitCode, message: envelope.error)
            return
        }
        guard let envelope else {
            let kind: GitbayError.Kind = Self.looksLikeJSON(body) ? .malformed : (status >= 500 ? .serverFailure : .notJSON)
            self = .failure(kind, exitCode: nil, message: nil)
            return
        }
        if (200..<300).contains(status) && (exitCode ?? 0) == 0 && envelope.error == nil {
            self = .success
            return
        }

        let messageText = message ?? ""
        let kind: GitbayError.Kind
        switch exitCode {
        case 1?:
            kind = messageText.contains(Self.pushDisabledMarker) ? .pushDisabled : .serverFailure
        case 2?:
            kind = .usage
        case 3?:
            kind = .notFound
        case 4?:
            kind = Self.deniedKind(messageText)
        case _?:
            kind = .serverFailure
        case nil:
            switch status {
            case 400: kind = .usage
            case 403: kind = Self.deniedKind(messageText)
            case 404: kind = .notFound
            case 500 where messageText.contains(Self.pushDisabledMarker): kind = .pushDisabled
            default: kind = (200..<300).contains(status) || status >= 500 ? .serverFailure : .malformed
            }
        }
        self = .failure(kind, exitCode: exitCode, message: message)
    }

    /// exit 4 / 403: the write limit and the read-only token are told apart by message only.
    private static func deniedKind(_ message: String) -> GitbayError.Kind {
        if message.contains(writeLimitMarker) {
            return .writeLimited(retryAfter: GoDuration.parseWait(inMessage: message))
        }
        if message.contains(readOnlyMarker) {
            return .readOnlyToken
        }
        return .denied
    }

    /// `Retry-After` in delta-seconds; the HTTP-date form is not used by gitbay and is ignored.
    static func parseRetryAfter(_ value: String) -> Duration? {
        let text = value.trimmingWhitespace()
        guard !text.isEmpty, text.utf8.allSatisfy({ (48...57).contains($0) }), let seconds = Int(text) else {
            return nil
        }
        return .seconds(seconds)
    }

    /// True when the body starts like a JSON object or array: broken JSON rather than another format.
    private static func looksLikeJSON(_ body: [UInt8]) -> Bool {
        let first = body.first { !($0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D) }
        return first == UInt8(ascii: "{") || first == UInt8(ascii: "[")
    }
}
