import TestSupport
import Testing

@testable import GitbayAPI
@testable import GitbayCurl
@testable import GitbaySupport

@Suite("CurlTransport")
struct CurlTransportTests {
    @Test(
        "only https, or plain http to a loopback host, may be sent to",
        arguments: [
            ("https://gitbay.org/api/v1/cmd", true),
            ("HTTPS://gitbay.org:8443/api/v1/read?argv=whoami", true),
            ("http://127.0.0.1:8080/api/v1/cmd", true),
            ("http://localhost/api/v1/cmd", true),
            ("http://[::1]:9000/api/v1/cmd", true),
            ("http://gitbay.org/api/v1/cmd", false),
            ("http://127.0.0.1.evil.test/api/v1/cmd", false),
            ("http://user@gitbay.org/api/v1/cmd", false),
            ("ftp://127.0.0.1/x", false),
            ("gitbay.org/api/v1/cmd", false),
        ])
    func destination(_ url: String, _ allowed: Bool) {
        let refused: Bool
        do {
            try CurlTransport.checkDestination(url)
            refused = false
        } catch {
            refused = true
        }
        #expect(refused == !allowed)
    }

    @Test(
        "a transfer waits for a shared connection (PIPEWAIT) only to an https URL, in any case",
        arguments: [
            ("https://gitbay.org", true), ("HTTPS://gitbay.org", true), ("HttpS:", true),
            ("http://127.0.0.1", false), ("https", false), ("httpsx://a", false), ("https\u{1A}//a", false),
        ])
    func httpsScheme(_ url: String, _ https: Bool) {
        #expect(CurlEasyHandle.isHTTPS(url) == https)
    }

    @Test(
        "a loopback host, which never goes through a proxy, is told from any other",
        arguments: [
            ("http://127.0.0.1:8080/api/v1/read?argv=whoami", true), ("https://localhost/api/v1/cmd", true), ("http://[::1]:3000/", true),
            ("http://127.9.9.9/", true), ("https://user@127.0.0.1/", true), ("HTTP://LOCALHOST:80/", true),
            ("https://gitbay.org/api/v1/cmd", false), ("https://127.0.0.1.example.com/", false), ("https://10.0.0.1/", false),
            ("https://gitbay.org/?next=http://127.0.0.1/", false), ("127.0.0.1", false), ("", false),
        ])
    func loopback(_ url: String, _ expected: Bool) {
        #expect(CurlTransport.isLoopback(url) == expected)
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

    @Test(
        "a redirect target is named without its query or user info",
        arguments: [
            ("https://other.test/login?token=gb_x#frag", "https://other.test/login"),
            ("https://user:pw@other.test/a", "https://other.test/a"),
            ("https://other.test", "https://other.test"),
        ])
    func redirectTarget(_ location: String, _ expected: String) {
        #expect(CurlEasyHandle.withoutCredentialsOrQuery(location) == expected)
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
