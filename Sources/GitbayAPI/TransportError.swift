import GitbaySupport

/// Why an HTTP exchange produced no answer. Carries values only: never a header value or a body.
public enum TransportError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Why a connection could not be made.
    public enum ConnectFailure: Sendable, Equatable {
        /// The host (or the proxy) name did not resolve.
        case hostNotFound
        /// The host answered but refused, or could not be reached.
        case refused
    }

    /// Which limit ran out.
    public enum TimeoutPhase: Sendable, Equatable {
        /// Connecting (TCP and TLS) took longer than the connect timeout.
        case connect
        /// The whole request took longer than the request timeout.
        case request
        /// The client's requests together, every attempt counted, took longer than its deadline.
        case deadline
    }

    /// No connection: the name did not resolve or the connection was refused. `detail` is the
    /// transport's message (curl's, or URLSession's).
    case connectFailed(ConnectFailure, detail: String)
    /// A timeout ran out; `limit` is the timeout that applied.
    case timedOut(TimeoutPhase, limit: Duration)
    /// The connection broke mid-exchange: reset, closed early, or a body shorter than announced.
    case connectionLost(detail: String)
    /// The TLS handshake or certificate verification failed.
    case tlsFailed(detail: String)
    /// The response body is larger than `limit` bytes; the transfer was aborted.
    case responseTooLarge(limit: Int)
    /// The server answered with a redirect, which is never followed (it would carry the credentials
    /// elsewhere). `target` is the Location without credentials, query or fragment, or nil when
    /// there was none.
    case redirect(status: Int, target: String?)
    /// The task was cancelled; the transfer was aborted.
    case cancelled
    /// The URL is not `https` and not plain `http` to a loopback host; nothing was sent.
    case insecureURL(scheme: String, host: String)
    /// The request itself cannot be sent (a header with a line break or control character).
    case invalidRequest(reason: String)
    /// libcurl could not be opened (not installed, or not where `GITBAY_SYNC_LIBCURL` says);
    /// nothing was sent. `detail` is the loader's message.
    case libcurlUnavailable(path: String, detail: String)
    /// Any other failure of the transport: its code and message (a curl code, or a URLSession
    /// `URLError` code, whose message says so).
    case other(code: Int, message: String)

    /// What to do when libcurl cannot be opened (`libcurlUnavailable`), as the agent says it
    /// (an app over URLSession never meets it).
    package static let libcurlFix = "install it (Debian and Ubuntu: `apt-get install libcurl4`), or name its file in GITBAY_SYNC_LIBCURL"

    /// True when the same request may succeed if sent again: connection failures, timeouts and
    /// broken connections.
    public var isRetryable: Bool {
        switch self {
        case .connectFailed, .timedOut, .connectionLost: true
        case .tlsFailed, .responseTooLarge, .redirect, .cancelled, .insecureURL, .invalidRequest, .libcurlUnavailable, .other:
            false
        }
    }

    public var description: String {
        switch self {
        case .connectFailed(.hostNotFound, let detail):
            "the host name did not resolve (\(detail))"
        case .connectFailed(.refused, let detail):
            "the connection was refused (\(detail))"
        case .timedOut(.connect, let limit):
            "connecting took longer than \(limit.shortDescription)"
        case .timedOut(.request, let limit):
            "the request took longer than \(limit.shortDescription)"
        case .timedOut(.deadline, let limit):
            "the requests took longer than the account's \(limit.shortDescription) deadline, every attempt counted"
        case .connectionLost(let detail):
            "the connection broke before the answer was complete (\(detail))"
        case .tlsFailed(let detail):
            "the TLS handshake or certificate check failed (\(detail))"
        case .responseTooLarge(let limit):
            "the response was larger than \(limit) bytes"
        case .redirect(let status, let target?):
            "the server redirected (\(status)) to \(target); redirects are not followed"
        case .redirect(let status, nil):
            "the server redirected (\(status)); redirects are not followed"
        case .cancelled:
            "the request was cancelled"
        case .insecureURL(let scheme, let host):
            "refusing to send credentials over \(scheme) to \(host); use https (plain http is allowed for loopback only)"
        case .invalidRequest(let reason):
            "the request could not be sent: \(reason)"
        case .libcurlUnavailable(let path, let detail):
            "libcurl could not be opened from \(path) (\(detail))"
        case .other(let code, let message):
            "the transfer failed (error \(code)): \(message)"
        }
    }
}
