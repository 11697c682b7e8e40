/// The base URL of a gitbay instance, normalised: scheme and host lower-cased, the host in its
/// one spelling among those certainly the same (`canonicalHost`: no final dot, IPv4 in dotted
/// decimal), the default port dropped, no path, query or trailing slash (`https://gitbay.org`,
/// `http://127.0.0.1:8080`).
///
/// Only `https` is accepted, except for loopback hosts (`127.0.0.0/8`, `::1`, `localhost`),
/// which may use plain `http` for local servers and tests.
package struct InstanceURL: Hashable, Sendable, Comparable, CustomStringConvertible {
    package let scheme: String
    /// The host, lower-cased; an IPv6 literal without brackets.
    package let host: String
    /// The explicit port, or nil for the scheme's default.
    package let port: Int?

    /// Why a string is not an acceptable instance URL.
    package enum ParseError: Error, Sendable, Equatable, CustomStringConvertible {
        case malformed(String)
        case unsupportedScheme(String)
        case plainHTTPToRemoteHost(String)
        case hasPathOrQuery(String)

        package var description: String {
            switch self {
            case .malformed(let text):
                "'\(text)' is not a URL; give the instance's address, e.g. https://gitbay.org"
            case .unsupportedScheme(let text):
                "'\(text)' is not an http(s) URL; give the instance's address, e.g. https://gitbay.org"
            case .plainHTTPToRemoteHost(let text):
                "'\(text)' uses plain http to a host that is not this machine; use https:// (plain http is allowed for loopback only)"
            case .hasPathOrQuery(let text):
                "'\(text)' has a path, query or credentials; give only the instance's address, e.g. https://gitbay.org"
            }
        }
    }

    package init(parsing text: String) throws(ParseError) {
        // Everything after the scheme must be visible ASCII, so the parse works on bytes.
        let bytes = Array(text.trimmingWhitespace().utf8)
        guard let schemeEnd = Self.firstIndex(of: Array("://".utf8), in: bytes) else { throw .malformed(text) }
        let schemeBytes = bytes[..<schemeEnd].map { (0x41...0x5A).contains($0) ? $0 + 0x20 : $0 }
        guard schemeBytes.elementsEqual("https".utf8) || schemeBytes.elementsEqual("http".utf8) else { throw .unsupportedScheme(text) }
        let scheme = schemeBytes.count == 5 ? "https" : "http"
        var rest = bytes[(schemeEnd + 3)...]
        while rest.last == UInt8(ascii: "/") { rest.removeLast() }
        guard !rest.isEmpty else { throw .malformed(text) }
        if rest.contains(where: Self.endsAuthority) { throw .hasPathOrQuery(text) }
        if rest.contains(where: { !(0x21...0x7E).contains($0) }) { throw .malformed(text) }

        let (host, portText) = try Self.hostAndPort(rest, text: text)
        guard !host.isEmpty, host.allSatisfy(Self.isHostByte) else { throw .malformed(text) }
        var port: Int?
        if let portText {
            guard let number = Int(String(decoding: portText, as: UTF8.self)), (1...65535).contains(number) else {
                throw .malformed(text)
            }
            port = number
        }
        let defaultPort = scheme == "https" ? 443 : 80
        if port == defaultPort { port = nil }

        self.scheme = scheme
        self.host = Self.canonicalHost(String(decoding: host.map { (0x41...0x5A).contains($0) ? $0 + 0x20 : $0 }, as: UTF8.self))
        self.port = port
        if scheme == "http" && !isLoopback { throw .plainHTTPToRemoteHost(text) }
    }

    /// The host (an IPv6 literal without its brackets) and the port's text, if any.
    private static func hostAndPort(_ rest: ArraySlice<UInt8>, text: String) throws(ParseError) -> (ArraySlice<UInt8>, ArraySlice<UInt8>?) {
        if rest.first == UInt8(ascii: "[") {
            guard let close = rest.firstIndex(of: UInt8(ascii: "]")) else { throw .malformed(text) }
            let after = rest[(close + 1)...]
            guard !after.isEmpty else { return (rest[(rest.startIndex + 1)..<close], nil) }
            guard after.first == UInt8(ascii: ":") else { throw .malformed(text) }
            return (rest[(rest.startIndex + 1)..<close], after.dropFirst())
        }
        if let colon = rest.lastIndex(of: UInt8(ascii: ":")) {
            return (rest[..<colon], rest[(colon + 1)...])
        }
        return (rest, nil)
    }

    /// A byte that may appear in a host: an ASCII letter or digit, `-`, `.`, `_` or `:`.
    private static func isHostByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"): true
        case UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: ":"): true
        default: false
        }
    }

    /// A byte that ends the authority: a path, query, fragment, or user info before it.
    private static func endsAuthority(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "/"), UInt8(ascii: "?"), UInt8(ascii: "#"), UInt8(ascii: "@"): true
        default: false
        }
    }

    private static func firstIndex(of needle: [UInt8], in bytes: [UInt8]) -> Int? {
        guard bytes.count >= needle.count else { return nil }
        return (0...(bytes.count - needle.count)).first { bytes[$0..<($0 + needle.count)].elementsEqual(needle) }
    }

    /// True for `localhost`, `127.0.0.0/8` and `::1`.
    package var isLoopback: Bool {
        if host == "localhost" || host == "::1" { return true }
        guard host.utf8.starts(with: "127.".utf8) else { return false }
        let parts = host.utf8.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        return parts.count == 4 && parts.allSatisfy { UInt8(Substring($0)) != nil }
    }

    /// `host` or `host:port`, with brackets around an IPv6 literal: the part after `@` in an
    /// account name.
    package var authority: String {
        let hostPart = host.contains(":") ? "[\(host)]" : host
        return port.map { "\(hostPart):\($0)" } ?? hostPart
    }

    /// `scheme://authority`, no trailing slash. Built as bytes and made a string once: every
    /// account's client asks for it, and string interpolation costs several times more.
    package var description: String {
        var text: [UInt8] = []
        text.reserveCapacity(scheme.utf8.count + host.utf8.count + 11)
        append(to: &text)
        return String(decoding: text, as: UTF8.self)
    }

    /// Appends the bytes of `description` to `text`: a URL built on it (an API route's) is
    /// made a string once, not once for the instance and again for the whole.
    package func append(to text: inout [UInt8]) {
        text.append(utf8Of: scheme)
        text.append(utf8Of: "://")
        let bracketed = host.utf8.contains(UInt8(ascii: ":"))
        if bracketed { text.append(UInt8(ascii: "[")) }
        text.append(utf8Of: host)
        if bracketed { text.append(UInt8(ascii: "]")) }
        guard let port else { return }
        text.append(UInt8(ascii: ":"))
        var divisor = 1
        while divisor * 10 <= port { divisor *= 10 }
        while divisor > 0 {
            text.append(UInt8(ascii: "0") + UInt8(port / divisor % 10))
            divisor /= 10
        }
    }

    /// The URL of an API route, e.g. `/api/v1/cmd`.
    package func url(path: String) -> String { description + path }

    package static func < (lhs: InstanceURL, rhs: InstanceURL) -> Bool { lhs.description < rhs.description }
}
