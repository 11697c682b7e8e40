import GitbayAPI
import GitbayCurl
import GitbayFake
import GitbayURLSession
import Testing

/// The transports every behaviour check runs over: one set of expectations, two transports.
enum TransportKind: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case curl
    case urlSession

    /// A transport of this kind: the process's libcurl transport, or a URLSession one of its own.
    func make() -> any HTTPTransport {
        switch self {
        case .curl: CurlTransport.shared
        case .urlSession: URLSessionTransport()
        }
    }

    var testDescription: String {
        switch self {
        case .curl: "libcurl"
        case .urlSession: "URLSession"
        }
    }
}

/// Requests as `GitbayClient` writes them, for tests that speak to a transport directly.
enum Requests {
    static let listPath = "/api/v1/read?argv=notifications&argv=device&argv=list"

    /// `notifications device list` on `server` with `token`, conditional on `etag` when given.
    static func list(on server: FakeGitbayServer, token: String, ifNoneMatch etag: String? = nil) -> HTTPRequest {
        var headers = [(name: "Authorization", value: "Bearer " + token), (name: "Accept", value: "application/json")]
        if let etag { headers.append((name: "If-None-Match", value: etag)) }
        return HTTPRequest(method: "GET", url: server.baseURL + listPath, headers: headers)
    }

    /// Short timeouts: a test never waits on a default.
    static func limits(
        requestTimeout: Duration = .seconds(30), maxResponseBytes: Int = 1 << 20, keeping names: Set<String>? = nil
    ) -> TransportConfiguration {
        var limits = TransportConfiguration(connectTimeout: .seconds(10), requestTimeout: requestTimeout, maxResponseBytes: maxResponseBytes)
        limits.responseHeaders = names
        return limits
    }
}
