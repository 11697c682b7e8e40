import Testing

@testable import GitbayAPI

/// The rules both transports apply to URLs and header fields, before a byte is sent.
@Suite("HTTPDestination")
struct HTTPDestinationTests {
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
            try HTTPDestination.check(url)
            refused = false
        } catch {
            refused = true
        }
        #expect(refused == !allowed)
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
        #expect(HTTPDestination.isLoopback(url) == expected)
    }

    @Test(
        "a redirect target is named without its query or user info",
        arguments: [
            ("https://other.test/login?token=gb_x#frag", "https://other.test/login"),
            ("https://user:pw@other.test/a", "https://other.test/a"),
            ("https://other.test", "https://other.test"),
        ])
    func redirectTarget(_ location: String, _ expected: String) {
        #expect(HTTPDestination.withoutCredentialsOrQuery(location) == expected)
    }

    @Test(
        "a loopback URL's host is named lower-cased and without brackets; any other has none",
        arguments: [
            ("HTTP://LOCALHOST:80/", "localhost"), ("http://[::1]:3000/", "::1"), ("https://user@127.0.0.1/", "127.0.0.1"),
            ("https://gitbay.org/", nil), ("https://127.0.0.1.example.com/", nil),
        ] as [(String, String?)])
    func loopbackHost(_ url: String, _ expected: String?) {
        #expect(HTTPDestination.loopbackHost(of: url) == expected)
    }

    @Test(
        "a header field that could break the request apart is refused",
        arguments: [
            ("Authorization", "Bearer gb_x\r\nX-Injected: 1"), ("X-A\nB", "1"), ("X:Y", "1"), ("", "1"), ("X-Null", "a\u{0}b"),
            ("X-Delete", "\u{7F}"), ("X Space", "1"),
        ])
    func unsafeHeader(_ name: String, _ value: String) {
        let request = HTTPRequest(method: "GET", url: "https://gitbay.org/", headers: [("Accept", "*/*"), (name, value)])
        #expect(throws: TransportError.invalidRequest(reason: "a header field contains a line break or control character")) {
            try request.checkHeaders()
        }
    }

    @Test("ordinary header fields, a tab and UTF-8 in a value included, pass")
    func safeHeaders() throws {
        let request = HTTPRequest(
            method: "POST", url: "https://gitbay.org/",
            headers: [("Authorization", "Bearer gb_x"), ("If-None-Match", "W/\"a\tb\""), ("X-Label", "Zoë's laptop")])
        try request.checkHeaders()
    }
}
