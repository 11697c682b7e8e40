import Foundation
import GitbayAPI
import GitbayFake
import Testing

@testable import GitbayURLSession

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What only the URLSession transport does: the rules URLSession would not keep on its own.
@Suite("URLSessionTransport")
struct URLSessionTransportTests {
    @Test("an https request whose limits name certificate authorities is refused, not sent trusting the system's")
    func certificateFile() async throws {
        var limits = Requests.limits()
        limits.certificateFile = "/etc/ssl/certs/ca-certificates.crt"
        let request = HTTPRequest(method: "GET", url: "https://127.0.0.1:1/api/v1/read?argv=whoami")
        let error = await #expect(throws: TransportError.self) { try await URLSessionTransport().send(request, limits: limits) }
        guard case .invalidRequest? = error else {
            Issue.record("expected a refusal, got \(String(describing: error))")
            return
        }
    }

    #if canImport(FoundationNetworking)
    @Test("where URLSession is libcurl, a loopback request that a proxy variable would send to the proxy is refused")
    func loopbackProxy() async throws {
        let server = try FakeGitbayServer()
        defer { server.stop() }
        let token = server.mintToken(for: "alice")
        // The proxy is 127.0.0.1 as well: a transport that sent anyway would reach nothing else.
        let proxied = URLSessionTransport(environment: ["http_proxy": "http://127.0.0.1:9"])
        let error = await #expect(throws: TransportError.self) {
            try await proxied.send(Requests.list(on: server, token: token), limits: Requests.limits())
        }
        guard case .invalidRequest(let reason)? = error, reason.contains("no_proxy") else {
            Issue.record("expected a refusal naming no_proxy, got \(String(describing: error))")
            return
        }
        #expect(server.connectionCount == 0)

        let excepted = URLSessionTransport(environment: ["http_proxy": "http://127.0.0.1:9", "no_proxy": "localhost, 127.0.0.1"])
        let response = try await excepted.send(Requests.list(on: server, token: token), limits: Requests.limits())
        #expect(response.status == 200)
    }
    #endif

    @Test(
        "whether libcurl would take a proxy from the environment for a loopback host",
        arguments: [
            ([:], "127.0.0.1", false),
            (["http_proxy": ""], "127.0.0.1", false),
            (["http_proxy": "http://proxy:3128"], "127.0.0.1", true),
            (["HTTPS_PROXY": "http://proxy:3128"], "localhost", true),
            (["ALL_PROXY": "socks5://proxy"], "::1", true),
            (["http_proxy": "http://proxy:3128", "no_proxy": "*"], "127.0.0.1", false),
            (["http_proxy": "http://proxy:3128", "NO_PROXY": "example.com, .LOCALHOST"], "localhost", false),
            (["http_proxy": "http://proxy:3128", "no_proxy": "[::1]"], "::1", false),
            (["http_proxy": "http://proxy:3128", "no_proxy": "127.0.0.2,localhost"], "127.0.0.1", true),
            (["http_proxy": "http://proxy:3128", "no_proxy": "", "NO_PROXY": "127.0.0.1"], "127.0.0.1", true),
        ] as [([String: String], String, Bool)])
    func proxyEnvironment(_ environment: [String: String], _ host: String, _ proxied: Bool) {
        #expect(ProxyEnvironment.wouldProxy(host: host, environment: environment) == proxied)
    }

    @Test(
        "a URLSession failure is the TransportError libcurl's transport reports for the same thing",
        arguments: [
            (.cannotFindHost, .connectFailed(.hostNotFound, detail: "")), (.dnsLookupFailed, .connectFailed(.hostNotFound, detail: "")),
            (.cannotConnectToHost, .connectFailed(.refused, detail: "")), (.notConnectedToInternet, .connectFailed(.refused, detail: "")),
            (.timedOut, .timedOut(.request, limit: Requests.limits().requestTimeout)), (.cancelled, .cancelled),
            (.networkConnectionLost, .connectionLost(detail: "")), (.badServerResponse, .connectionLost(detail: "")),
            (.secureConnectionFailed, .tlsFailed(detail: "")), (.serverCertificateUntrusted, .tlsFailed(detail: "")),
            (.serverCertificateHasUnknownRoot, .tlsFailed(detail: "")), (.clientCertificateRequired, .tlsFailed(detail: "")),
            (.unsupportedURL, .other(code: URLError.Code.unsupportedURL.rawValue, message: "")),
        ] as [(URLError.Code, TransportError)])
    func urlErrors(_ code: URLError.Code, _ expected: TransportError) {
        let mapped = TransportError(sessionError: URLError(code), limits: Requests.limits())
        #expect(Self.withoutDetail(mapped) == expected)
        if case .connectFailed(_, let detail) = mapped { #expect(detail.hasPrefix("URLSession: ")) }
        if case .other(_, let message) = mapped { #expect(message.hasPrefix("URLSession: ")) }
    }

    /// The error with its transport's message left out, to compare the case alone.
    static func withoutDetail(_ error: TransportError) -> TransportError {
        switch error {
        case .connectFailed(let failure, _): .connectFailed(failure, detail: "")
        case .connectionLost: .connectionLost(detail: "")
        case .tlsFailed: .tlsFailed(detail: "")
        case .other(let code, _): .other(code: code, message: "")
        default: error
        }
    }
}
