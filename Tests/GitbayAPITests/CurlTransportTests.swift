import TestSupport
import Testing

@testable import GitbayAPI
@testable import GitbayCurl
@testable import GitbaySupport

@Suite("CurlTransport")
struct CurlTransportTests {
    @Test(
        "a transfer waits for a shared connection (PIPEWAIT) only to an https URL, in any case",
        arguments: [
            ("https://gitbay.org", true), ("HTTPS://gitbay.org", true), ("HttpS:", true),
            ("http://127.0.0.1", false), ("https", false), ("httpsx://a", false), ("https\u{1A}//a", false),
        ])
    func httpsScheme(_ url: String, _ https: Bool) {
        #expect(CurlEasyHandle.isHTTPS(url) == https)
    }

    @Test("plain http to a remote host is refused before anything is sent")
    func refusesPlainHTTP() async throws {
        // The client's InstanceURL refuses it first; the transport refuses it on its own too.
        #expect(throws: InstanceURL.ParseError.plainHTTPToRemoteHost("http://gitbay.example")) {
            try InstanceURL(parsing: "http://gitbay.example")
        }
        let transport = CurlTransport()
        let error = await #expect(throws: TransportError.self) {
            try await transport.send(HTTPRequest(method: "GET", url: "http://gitbay.example/api/v1/read?argv=whoami"), limits: .init())
        }
        #expect(error == .insecureURL(scheme: "http", host: "gitbay.example"))
    }

    @Test("a closed port is a connect failure")
    func connectRefused() async throws {
        let transport = CurlTransport()
        let error = await #expect(throws: TransportError.self) {
            // Port 1 on loopback is closed on any test machine.
            try await transport.send(
                HTTPRequest(method: "GET", url: "http://127.0.0.1:1/api/v1/read?argv=whoami"),
                limits: .init(connectTimeout: .seconds(2), requestTimeout: .seconds(2)))
        }
        guard case .connectFailed(.refused, _)? = error else {
            Issue.record("expected a refused connection, got \(String(describing: error))")
            return
        }
    }
}
