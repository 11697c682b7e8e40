/// The base URL of a gitbay instance, normalised: scheme and host lower-cased, the default port
/// dropped, no path, query or trailing slash (`https://gitbay.org`, `http://127.0.0.1:8080`).
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
        let trimmed = text.trimmingWhitespace()
        guard let schemeEnd = trimmed.firstRange(of: "://") else { throw .malformed(text) }
        let scheme = trimmed[..<schemeEnd.lowerBound].lowercased()
        guard scheme == "https" || scheme == "http" else { throw .unsupportedScheme(text) }
        var rest = Substring(trimmed[schemeEnd.upperBound...])
        while rest.hasSuffix("/") { rest.removeLast() }
        guard !rest.isEmpty else { throw .malformed(text) }
        if rest.contains(where: { "/?#@".contains($0) }) { throw .hasPathOrQuery(text) }
        if rest.contains(where: { $0 == " " || $0 == "\t" || $0.asciiValue.map { $0 < 0x20 || $0 >= 0x7F } ?? true }) {
            throw .malformed(text)
        }

        var host: Substring
        var portText: Substring?
        if rest.hasPrefix("[") {
            guard let close = rest.firstIndex(of: "]") else { throw .malformed(text) }
            host = rest[rest.index(after: rest.startIndex)..<close]
            let after = rest[rest.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw .malformed(text) }
                portText = after.dropFirst()
            }
        } else if let colon = rest.lastIndex(of: ":") {
            host = rest[..<colon]
            portText = rest[rest.index(after: colon)...]
        } else {
            host = rest
        }
        guard !host.isEmpty, host.allSatisfy({ $0.isLetter || $0.isNumber || "-._:".contains($0) }) else {
            throw .malformed(text)
        }
        var port: Int?
        if let portText {
            guard let number = Int(portText), (1...65535).contains(number), portText.allSatisfy(\.isASCII) else {
                throw .malformed(text)
            }
            port = number
        }
        let defaultPort = scheme == "https" ? 443 : 80
        if port == defaultPort { port = nil }

        self.scheme = scheme
        self.host = host.lowercased()
        self.port = port
        if scheme == "http" && !isLoopback { throw .plainHTTPToRemoteHost(text) }
    }

    /// True for `localhost`, `127.0.0.0/8` and `::1`.
    package var isLoopback: Bool {
        if host == "localhost" || host == "::1" { return true }
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts[0] == "127" && parts.allSatisfy { UInt8($0) != nil }
    }

    /// `host` or `host:port`, with brackets around an IPv6 literal: the part after `@` in an
    /// account name.
    package var authority: String {
        let hostPart = host.contains(":") ? "[\(host)]" : host
        return port.map { "\(hostPart):\($0)" } ?? hostPart
    }

    /// `scheme://authority`, no trailing slash.
    package var description: String { "\(scheme)://\(authority)" }

    /// The URL of an API route, e.g. `/api/v1/cmd`.
    package func url(path: String) -> String { description + path }

    package static func < (lhs: InstanceURL, rhs: InstanceURL) -> Bool { lhs.description < rhs.description }
}
