internal import CCurl
import FoundationEssentials
import GitbaySupport
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// HTTP over libcurl for one client: its requests run on its connection pool's event loop and
/// reuse the pool's connections to the same instance.
///
/// A request borrows an easy handle from the pool and gives it back when it ends;
/// a request waits for its answer without holding a thread, and a cancelled task aborts its
/// transfer. Redirects are not followed, only `https` (or plain `http` to a loopback host) is
/// spoken, and proxy environment variables are honoured, except for a loopback host, which is
/// always reached directly.
final class CurlTransport: Sendable {
    let configuration: TransportConfiguration
    let pool: ConnectionPool

    init(configuration: TransportConfiguration = .init(), pool: ConnectionPool = .shared) {
        self.configuration = configuration
        self.pool = pool
    }

    /// Sends one request and returns the first answer (any status except a redirect). `within`
    /// shortens both timeouts to it, for the last of a deadline.
    func send(_ request: HTTPRequest, within limit: Duration? = nil) async throws(TransportError) -> HTTPResponse {
        try Self.checkDestination(request.url)
        let transfer = CurlTransfer(maxResponseBytes: configuration.maxResponseBytes, keeping: configuration.responseHeaders)
        let loop = try pool.loop
        let easy = try pool.borrowHandle()
        let configuration = limit.map(configuration.limited(to:)) ?? configuration
        if let refusal = easy.prepare(request, transfer: transfer, configuration: configuration) {
            pool.giveBack(easy)
            throw refusal
        }
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Result<HTTPResponse, TransportError>, Never>) in
                let job = CurlEventLoop.Job(easy: easy, transfer: transfer) { code in
                    let result = easy.finish(code, transfer: transfer, configuration: configuration)
                    self.pool.giveBack(easy)
                    continuation.resume(returning: result)
                }
                loop.submit(job)
            }
        } onCancel: {
            transfer.cancel()
            loop.noticeCancellation()
        }
        return try result.get()
    }

    /// Refuses anything but `https` and plain `http` to a loopback host, before a byte is sent.
    static func checkDestination(_ url: String) throws(TransportError) {
        if url.utf8.starts(with: "https://".utf8) { return }
        guard let (scheme, authority) = schemeAndAuthority(url) else {
            throw .insecureURL(scheme: "none", host: "")
        }
        if scheme == "https" { return }
        // InstanceURL holds the loopback rule; parsing only the authority reuses it.
        if scheme == "http", (try? InstanceURL(parsing: "http://" + authority)) != nil { return }
        let host = (try? InstanceURL(parsing: "https://" + authority))?.host ?? String(authority)
        throw .insecureURL(scheme: scheme, host: host)
    }

    /// Whether the URL names a loopback host (`127.0.0.0/8`, `::1`, `localhost`), by the rule
    /// `InstanceURL` holds.
    static func isLoopback(_ url: String) -> Bool {
        guard let (_, authority) = schemeAndAuthority(url) else { return false }
        return (try? InstanceURL(parsing: "https://" + authority))?.isLoopback ?? false
    }

    /// The lower-cased scheme and the authority without user info; nil without `scheme://`.
    private static func schemeAndAuthority(_ url: String) -> (scheme: String, authority: Substring)? {
        guard let colon = url.firstIndex(of: ":"), url[colon...].hasPrefix("://") else { return nil }
        let rest = url[url.index(colon, offsetBy: 3)...]
        var authority = rest[..<(rest.firstIndex(where: { "/?#".contains($0) }) ?? rest.endIndex)]
        if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
        return (url[..<colon].lowercased(), authority)
    }
}
