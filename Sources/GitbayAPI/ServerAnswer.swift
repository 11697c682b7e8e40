import GitbaySupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

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
        let envelope = try? JSONDecoder().decode(ResponseEnvelope.self, from: Data(body))
        let exitCode = envelope?.exitCode
        let message = envelope?.error
        let retryAfter = headers["retry-after"].flatMap(Self.parseRetryAfter)

        // These statuses mean the same whoever wrote the body: the server, a proxy or a limiter.
        if let kind = Self.kind(ofStatus: status, retryAfter: retryAfter) {
            self = .failure(kind, exitCode: exitCode, message: message)
            return
        }
        // Everything else depends on the body, which must speak this client's protocol.
        guard let envelope else {
            let kind: GitbayError.Kind = Self.looksLikeJSON(body) ? .malformed : (status >= 500 ? .serverFailure : .notJSON)
            self = .failure(kind, exitCode: nil, message: nil)
            return
        }
        if envelope.protocolVersion != 1 {
            self = .failure(.protocolVersion(envelope.protocolVersion), exitCode: exitCode, message: message)
            return
        }
        if (200..<300).contains(status) && (exitCode ?? 0) == 0 && message == nil {
            self = .success
            return
        }
        self = .failure(Self.kind(ofExitCode: exitCode, status: status, message: message ?? ""), exitCode: exitCode, message: message)
    }

    /// The failure a status means on its own, whatever the body says; nil for any other status.
    private static func kind(ofStatus status: Int, retryAfter: Duration?) -> GitbayError.Kind? {
        switch status {
        case 401: .authFailed
        case 429: .rateLimited(retryAfter: retryAfter)
        case 503 where retryAfter != nil: .rateLimited(retryAfter: retryAfter)
        case 502, 503, 504: .serverFailure
        default: nil
        }
    }

    /// The failure a gitbay answer reports: by its `exit_code`, else by its status.
    private static func kind(ofExitCode exitCode: Int?, status: Int, message: String) -> GitbayError.Kind {
        switch exitCode {
        case 1?:
            message.contains(pushDisabledMarker) ? .pushDisabled : .serverFailure
        case 2?:
            .usage
        case 3?:
            .notFound
        case 4?:
            deniedKind(message)
        case _?:
            .serverFailure
        case nil:
            switch status {
            case 400: .usage
            case 403: deniedKind(message)
            case 404: .notFound
            case 500 where message.contains(pushDisabledMarker): .pushDisabled
            default: (200..<300).contains(status) || status >= 500 ? .serverFailure : .malformed
            }
        }
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

    /// The longest wait a server's number is read as: an hour, the backoff ceiling of a run.
    /// No gitbay asks for longer (its limiter's waits are seconds, the write limit's about a
    /// minute); a longer wait, or a number too large to read, means the same hour, so that no
    /// number a server sends can overflow a sum or hold an account for longer.
    static let longestWait: Duration = .seconds(3600)

    /// `Retry-After` in delta-seconds, at most `longestWait`; the HTTP-date form is not used by
    /// gitbay and is ignored.
    static func parseRetryAfter(_ value: String) -> Duration? {
        let text = value.trimmingWhitespace()
        guard !text.isEmpty, text.utf8.allSatisfy({ (48...57).contains($0) }) else { return nil }
        let bound = longestWait.components.seconds
        var seconds: Int64 = 0
        for digit in text.utf8 {
            seconds = seconds * 10 + Int64(digit - 48)
            // Stops before any overflow: `bound` is far below Int64.max / 10.
            if seconds >= bound { return longestWait }
        }
        return .seconds(seconds)
    }

    /// The longest `ETag` kept: gitbay's are a quoted hash, well under it. A tag is stored with
    /// the account and sent back with every list, so one that is longer is not kept.
    static let longestEntityTag = 256

    /// The list's `ETag`, when it can be sent back as `If-None-Match`: 1 to `longestEntityTag`
    /// bytes, none of them a space or a control character. Nil otherwise: the next list is
    /// asked for without one, which costs a full answer and nothing else.
    static func entityTag(_ value: String?) -> String? {
        guard let value, (1...longestEntityTag).contains(value.utf8.count),
            value.utf8.allSatisfy({ $0 > 0x20 && $0 != 0x7F })
        else { return nil }
        return value
    }

    /// True when the body starts like a JSON object or array: broken JSON rather than another format.
    private static func looksLikeJSON(_ body: [UInt8]) -> Bool {
        let first = body.first { !($0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D) }
        return first == UInt8(ascii: "{") || first == UInt8(ascii: "[")
    }
}
