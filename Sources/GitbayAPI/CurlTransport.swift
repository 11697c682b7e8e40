internal import CCurl
import Dispatch
import FoundationEssentials
import GitbaySupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// HTTP over libcurl for one client: one easy handle, reused so requests share a connection.
///
/// Transfers run one at a time on the transport's own serial queue, never on a cooperative
/// thread; a cancelled task aborts its transfer. Redirects are not followed, only `https` (or
/// plain `http` to a loopback host) is spoken, and proxy environment variables are honoured.
final class CurlTransport: Sendable {
    let configuration: TransportConfiguration
    private let easy: CurlEasyHandle
    private let queue: DispatchQueue

    /// Process-wide setup, run once: curl's global state, and SIGPIPE ignored so that a peer
    /// closing a socket cannot kill the process.
    private static let processSetup: Void = {
        signal(SIGPIPE, SIG_IGN)
        let code = curl_global_init(Int(CURL_GLOBAL_SSL | CURL_GLOBAL_WIN32))
        precondition(code == CURLE_OK, "curl_global_init failed")
    }()

    init(configuration: TransportConfiguration = .init()) {
        Self.processSetup
        self.configuration = configuration
        easy = CurlEasyHandle()
        queue = DispatchQueue(label: "gitbay-sync.curl-transport")
    }

    /// Sends one request and returns the first answer (any status except a redirect).
    func send(_ request: HTTPRequest) async throws(TransportError) -> HTTPResponse {
        try Self.checkDestination(request.url)
        let transfer = CurlTransfer(maxResponseBytes: configuration.maxResponseBytes)
        let easy = easy
        let queue = queue
        let configuration = configuration
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Result<HTTPResponse, TransportError>, Never>) in
                queue.async {
                    continuation.resume(returning: easy.perform(request, transfer: transfer, configuration: configuration))
                }
            }
        } onCancel: {
            transfer.cancel()
        }
        return try result.get()
    }

    /// Refuses anything but `https` and plain `http` to a loopback host, before a byte is sent.
    static func checkDestination(_ url: String) throws(TransportError) {
        guard let schemeEnd = url.firstRange(of: "://") else {
            throw .insecureURL(scheme: "none", host: "")
        }
        let scheme = url[..<schemeEnd.lowerBound].lowercased()
        let rest = url[schemeEnd.upperBound...]
        var authority = rest[..<(rest.firstIndex(where: { "/?#".contains($0) }) ?? rest.endIndex)]
        if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
        if scheme == "https" { return }
        // InstanceURL holds the loopback rule; parsing only the authority reuses it.
        if scheme == "http", (try? InstanceURL(parsing: "http://" + authority)) != nil { return }
        let host = (try? InstanceURL(parsing: "https://" + authority))?.host ?? String(authority)
        throw .insecureURL(scheme: scheme, host: host)
    }
}
