import TestSupport
import Testing

@testable import GitbaySupport

/// The byte-level instance URL parser and the whitespace trim, checked against the
/// character-level versions they replaced on generated text, error for error.
@Suite("Instance URL parsing against the character-level reference")
struct InstanceURLReferenceTests {
    struct Parsed: Equatable {
        let scheme: String
        let host: String
        let port: Int?
        var bracketedHost: String { host.contains(":") ? "[\(host)]" : host }
    }

    static func reference(_ text: String) throws(InstanceURL.ParseError) -> Parsed {
        let trimmed = text.trimmingWhitespace()
        guard let schemeEnd = trimmed.firstRange(of: "://") else { throw InstanceURL.ParseError.malformed(text) }
        let scheme = trimmed[..<schemeEnd.lowerBound].lowercased()
        guard scheme == "https" || scheme == "http" else { throw InstanceURL.ParseError.unsupportedScheme(text) }
        var rest = Substring(trimmed[schemeEnd.upperBound...])
        while rest.hasSuffix("/") { rest.removeLast() }
        guard !rest.isEmpty else { throw InstanceURL.ParseError.malformed(text) }
        if rest.contains(where: { "/?#@".contains($0) }) { throw InstanceURL.ParseError.hasPathOrQuery(text) }
        if rest.contains(where: { $0 == " " || $0 == "\t" || $0.asciiValue.map { $0 < 0x20 || $0 >= 0x7F } ?? true }) {
            throw InstanceURL.ParseError.malformed(text)
        }

        var host: Substring
        var portText: Substring?
        if rest.hasPrefix("[") {
            guard let close = rest.firstIndex(of: "]") else { throw InstanceURL.ParseError.malformed(text) }
            host = rest[rest.index(after: rest.startIndex)..<close]
            let after = rest[rest.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw InstanceURL.ParseError.malformed(text) }
                portText = after.dropFirst()
            }
        } else if let colon = rest.lastIndex(of: ":") {
            host = rest[..<colon]
            portText = rest[rest.index(after: colon)...]
        } else {
            host = rest
        }
        guard !host.isEmpty, host.allSatisfy({ $0.isLetter || $0.isNumber || "-._:".contains($0) }) else {
            throw InstanceURL.ParseError.malformed(text)
        }
        var port: Int?
        if let portText {
            guard let number = Int(portText), (1...65535).contains(number), portText.allSatisfy(\.isASCII) else {
                throw InstanceURL.ParseError.malformed(text)
            }
            port = number
        }
        let defaultPort = scheme == "https" ? 443 : 80
        if port == defaultPort { port = nil }

        // The one spelling of the host is the parser's own rule (its table is in InstanceURLTests).
        let parsed = Parsed(scheme: scheme, host: InstanceURL.canonicalHost(host.lowercased()), port: port)
        if scheme == "http" && !(try! InstanceURL(parsing: "https://\(parsed.bracketedHost)")).isLoopback {
            throw .plainHTTPToRemoteHost(text)
        }
        return parsed
    }

    static func referenceTrim(_ text: String) -> String {
        guard let first = text.firstIndex(where: { !$0.isWhitespace }), let last = text.lastIndex(where: { !$0.isWhitespace }) else {
            return ""
        }
        return String(text[first...last])
    }

    static let pieces = [
        "https", "http", "HTTPS", "Http", "ftp", "://", ":/", "/", "//", "?", "#", "@", "[", "]", ":", "::1", "127.0.0.1", "127.1.2.3",
        "localhost", "gitbay.org", "Git-Bay.ORG", "a_b", "8080", "443", "80", "+443", "0", "65536", "-1", " ", "\t", "\n",
        "\r\n", "\u{A0}", "\u{2028}", "é", "٣", "\u{600}", "x", ".", "%20", "\u{7F}", "\u{1}",
    ]

    @Test("every generated text parses, or fails with the same error, as the reference does")
    func parseMatchesReference() {
        let seed = SplitMix64.seed(from: "GITBAY_URL_SEED")
        var random = SplitMix64(seed: seed)
        let templates = [["https", "://", "gitbay.org"], ["http", "://", "127.0.0.1", ":", "8080"], ["https", "://", "[", "::1", "]"]]
        for index in 0..<20_000 {
            var parts = templates[index % templates.count]
            for _ in 0..<Int.random(in: 0...4, using: &random) {
                let piece = Self.pieces.randomElement(using: &random)!
                parts.insert(piece, at: Int.random(in: 0...parts.count, using: &random))
            }
            let text = parts.joined()
            let expected = Result { () throws(InstanceURL.ParseError) in try Self.reference(text) }
            let actual = Result { () throws(InstanceURL.ParseError) in
                let url = try InstanceURL(parsing: text)
                return Parsed(scheme: url.scheme, host: url.host, port: url.port)
            }
            if text.unicodeScalars.contains("\u{600}") {
                // A prepended mark joins the separator after it into one character, which hid the
                // separator from the reference: both refuse the text, for different reasons.
                #expect((try? actual.get()) == nil && (try? expected.get()) == nil, "case \(index) of seed \(seed): \(text.debugDescription)")
            } else {
                #expect(actual == expected, "case \(index) of seed \(seed): \(text.debugDescription)")
            }
            #expect(text.trimmingWhitespace() == Self.referenceTrim(text), "case \(index) of seed \(seed): \(text.debugDescription)")
        }
    }
}
