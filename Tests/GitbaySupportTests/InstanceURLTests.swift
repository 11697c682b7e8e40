import Testing

@testable import GitbaySupport

/// Spellings of one instance that are certainly the same are one `InstanceURL`; others stay apart.
@Suite("Instance URL spellings")
struct InstanceURLTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let text: String
        let expected: String
        var testDescription: String { "\(text) -> \(expected)" }
    }

    static let same: [Case] = [
        Case(text: "https://GitBay.ORG/", expected: "https://gitbay.org"),
        Case(text: "https://gitbay.org.", expected: "https://gitbay.org"),
        Case(text: "https://gitbay.org.:443", expected: "https://gitbay.org"),
        Case(text: "https://gitbay.org.:8443/", expected: "https://gitbay.org:8443"),
        Case(text: "http://127.000.000.001:8080", expected: "http://127.0.0.1:8080"),
        Case(text: "http://127.0.0.1.:8080", expected: "http://127.0.0.1:8080"),
        Case(text: "http://0x7f.0.0.1:8080", expected: "http://127.0.0.1:8080"),
        Case(text: "http://0177.0.0.1:8080", expected: "http://127.0.0.1:8080"),
        Case(text: "http://127.1:8080", expected: "http://127.0.0.1:8080"),
        Case(text: "http://2130706433:8080", expected: "http://127.0.0.1:8080"),
        Case(text: "https://010.0.0.1", expected: "https://8.0.0.1"),
        Case(text: "http://[0:0:0:0:0:0:0:1]:8080", expected: "http://[::1]:8080"),
        Case(text: "https://[2001:DB8:0:0::1]", expected: "https://[2001:db8::1]"),
    ]

    @Test("certainly the same spelling is one URL", arguments: same)
    func canonical(_ example: Case) throws {
        #expect(try InstanceURL(parsing: example.text).description == example.expected)
    }

    static let apart: [Case] = [
        Case(text: "http://localhost:8080", expected: "http://localhost:8080"),
        Case(text: "https://gitbay.org..", expected: "https://gitbay.org.."),
        Case(text: "https://256.0.0.1", expected: "https://256.0.0.1"),
        Case(text: "https://1.2.3.4.5", expected: "https://1.2.3.4.5"),
        Case(text: "https://08.0.0.1", expected: "https://08.0.0.1"),
        Case(text: "https://99999999999", expected: "https://99999999999"),
        Case(text: "https://git-0x1.example", expected: "https://git-0x1.example"),
    ]

    @Test("a spelling that is not certainly the same stays as written (lower-cased)", arguments: apart)
    func leftAsIs(_ example: Case) throws {
        #expect(try InstanceURL(parsing: example.text).description == example.expected)
    }

    @Test("an IPv4 spelling of loopback allows plain http; a non-loopback one does not")
    func loopbackSpellings() throws {
        #expect(try InstanceURL(parsing: "http://127.000.000.001:1").isLoopback)
        #expect(throws: InstanceURL.ParseError.self) { try InstanceURL(parsing: "http://0x7e.0.0.1") }
    }
}
