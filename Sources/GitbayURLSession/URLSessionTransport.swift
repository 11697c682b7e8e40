import Foundation
import GitbayAPI

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// HTTP over URLSession, for an app on Apple's platforms, which speaks to its instances without
/// libcurl: the same rules and the same `TransportError`s as `GitbayCurl.CurlTransport`.
///
/// Only `https`, or plain `http` to a loopback host, is spoken, and a request with a header
/// field that could break it apart is refused, before anything is sent. Redirects are never
/// followed: the answer is `.redirect`, naming the target without credentials or query. Nothing
/// is kept between requests but connections: no cookies, no cache, no credentials (the bearer
/// token travels in its request's `Authorization` field only). Remote hosts are reached
/// through the system's proxy settings, a loopback host never through a proxy: where
/// URLSession is libcurl (Linux), which takes its proxy from the environment whatever a
/// session says, a loopback request that a proxy variable would divert is refused instead.
///
/// `TransportConfiguration` is enforced here rather than by URLSession: the request timeout by
/// a timer of its own (URLSession's timeouts are idle timeouts), the largest body as it
/// arrives. URLSession reports no moment at which a connection is up, so the connect timeout
/// has no separate effect: connecting counts against the request timeout, and a timeout is
/// always `.timedOut(.request, …)`. URLSession trusts the system's certificate authorities
/// only: an `https` request whose limits name a certificate file or folder is refused.
public final class URLSessionTransport: HTTPTransport {
    /// For every host but loopback: the system's proxy settings.
    private let session: URLSession
    /// For loopback hosts: no proxy, ever.
    private let loopbackSession: URLSession
    private let events: SessionEvents
    /// The environment libcurl reads its proxy variables from, where URLSession is libcurl.
    private let environment: [String: String]

    /// A transport with its own sessions. `environment` matters only where URLSession is built
    /// on libcurl (Linux), which takes a proxy from it whatever a session is told.
    public convenience init(environment: [String: String] = ProcessInfo.processInfo.environment) {
        self.init(configuration: .ephemeral, environment: environment)
    }

    /// A transport whose sessions start from a copy of the app's `configuration`: its
    /// `protocolClasses` (an app's `URLProtocol` stubs), extra headers, proxy, TLS and network
    /// settings apply. The rules above are laid over the copy: no cookies, no cache, no
    /// credential storage, and never a proxy for a loopback host. `configuration` itself is
    /// left unchanged.
    public init(configuration: URLSessionConfiguration, environment: [String: String] = ProcessInfo.processInfo.environment) {
        let events = SessionEvents()
        self.events = events
        self.environment = environment
        session = URLSession(configuration: Self.keepingNothing(configuration, proxied: true), delegate: events, delegateQueue: nil)
        loopbackSession = URLSession(configuration: Self.keepingNothing(configuration, proxied: false), delegate: events, delegateQueue: nil)
    }

    deinit {
        // A session holds its delegate until it is invalidated.
        session.finishTasksAndInvalidate()
        loopbackSession.finishTasksAndInvalidate()
    }

    /// Sends one request and returns the first answer (any status except a redirect).
    public func send(_ request: HTTPRequest, limits: TransportConfiguration) async throws(TransportError) -> HTTPResponse {
        let loopback = try checkSendable(request, limits: limits)
        let task = (loopback ? loopbackSession : session).dataTask(with: try Self.urlRequest(for: request, limits: limits))
        let exchange = URLSessionExchange(task: task, limits: limits)
        events.register(exchange)
        let timeout = limits.requestTimeout
        let timer = Task {
            do { try await Task.sleep(for: timeout) } catch { return }
            exchange.stop(.timedOut(.request, limit: timeout))
        }
        defer { timer.cancel() }
        let outcome = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                if !exchange.begin(continuation) { events.forget(exchange) }
            }
        } onCancel: {
            exchange.stop(.cancelled)
        }
        return try outcome.get()
    }

    /// Refuses what must not be sent, before any connection; returns whether the URL names a
    /// loopback host.
    private func checkSendable(_ request: HTTPRequest, limits: TransportConfiguration) throws(TransportError) -> Bool {
        try HTTPDestination.check(request.url)
        try request.checkHeaders()
        let loopbackHost = HTTPDestination.loopbackHost(of: request.url)
        if limits.certificateFile != nil || limits.certificateFolder != nil, Self.isHTTPS(request.url) {
            throw .invalidRequest(
                reason: "URLSession trusts the system's certificate authorities only; it takes no certificate file or folder")
        }
        #if canImport(FoundationNetworking)
        if let loopbackHost, ProxyEnvironment.wouldProxy(host: loopbackHost, environment: environment) {
            throw .invalidRequest(
                reason: "URLSession here takes a proxy from the environment even for \(loopbackHost), which must be reached directly; "
                    + "name it in no_proxy")
        }
        #endif
        return loopbackHost != nil
    }

    /// The request as URLSession takes it. Its timeout is a backstop past the transport's own
    /// timer (URLSession on Linux counts it in whole seconds).
    static func urlRequest(for request: HTTPRequest, limits: TransportConfiguration) throws(TransportError) -> URLRequest {
        guard let url = URL(string: request.url), let scheme = url.scheme?.lowercased() else {
            throw .invalidRequest(reason: "URLSession cannot read the URL")
        }
        // The host URLSession would connect to, as it reads the URL, must pass the same rule.
        let host = url.host(percentEncoded: false) ?? ""
        let authority = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
        guard scheme == "https" || (scheme == "http" && HTTPDestination.isLoopback("http://" + authority)) else {
            throw .insecureURL(scheme: scheme, host: host)
        }
        let (seconds, attoseconds) = limits.requestTimeout.components
        var urlRequest = URLRequest(
            url: url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: TimeInterval(seconds + (attoseconds > 0 ? 2 : 1)))
        urlRequest.httpMethod = request.method
        urlRequest.httpShouldHandleCookies = false
        for (name, value) in request.headers {
            urlRequest.addValue(value, forHTTPHeaderField: name)
        }
        if urlRequest.value(forHTTPHeaderField: "User-Agent") == nil {
            urlRequest.setValue("gitbay-sync", forHTTPHeaderField: "User-Agent")
        }
        urlRequest.httpBody = request.body.map { Data($0) }
        return urlRequest
    }

    /// A copy of `base` that keeps nothing: no cookies, no cache, no credentials.
    static func keepingNothing(_ base: URLSessionConfiguration, proxied: Bool) -> URLSessionConfiguration {
        guard let configuration = base.copy() as? URLSessionConfiguration else {
            preconditionFailure("a URLSessionConfiguration copies as one")
        }
        configuration.httpCookieStorage = nil
        configuration.httpShouldSetCookies = false
        configuration.httpCookieAcceptPolicy = .never
        configuration.urlCache = nil
        configuration.urlCredentialStorage = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        // An empty dictionary turns every proxy off; nil keeps the system's settings.
        if !proxied { configuration.connectionProxyDictionary = [:] }
        return configuration
    }

    /// Whether the URL's scheme is `https`, in any case.
    private static func isHTTPS(_ url: String) -> Bool {
        url.prefix(6).lowercased() == "https:"
    }
}
