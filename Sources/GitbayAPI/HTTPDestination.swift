import GitbaySupport
import Synchronization

/// The rules every transport applies to the URLs it is handed and the URLs it names, written
/// once so that libcurl and URLSession cannot disagree on them.
package enum HTTPDestination {
    /// Refuses anything but `https` and plain `http` to a loopback host, before a byte is sent.
    package static func check(_ url: String) throws(TransportError) {
        if url.utf8.starts(with: "https://".utf8) { return }
        guard let (scheme, authority) = schemeAndAuthority(url) else {
            throw .insecureURL(scheme: "none", host: "")
        }
        if scheme == "https" { return }
        if scheme == "http" {
            let authority = String(authority)
            if loopbackAuthorities.withLock({ $0.contains(authority) }) { return }
            // InstanceURL holds the loopback rule; parsing only the authority reuses it.
            if (try? InstanceURL(parsing: "http://" + authority)) != nil {
                loopbackAuthorities.withLock { if $0.count < 64 { $0.insert(authority) } }
                return
            }
        }
        let host = (try? InstanceURL(parsing: "https://" + authority))?.host ?? String(authority)
        throw .insecureURL(scheme: scheme, host: host)
    }

    /// Authorities found to be loopback hosts plain `http` may reach: a run asks about the same
    /// few for every request, and the rule never changes its answer (a few dozen at most).
    private static let loopbackAuthorities = Mutex<Set<String>>([])

    /// Whether the URL names a loopback host (`127.0.0.0/8`, `::1`, `localhost`), by the rule
    /// `InstanceURL` holds. A loopback host is never reached through a proxy.
    package static func isLoopback(_ url: String) -> Bool {
        loopbackHost(of: url) != nil
    }

    /// The URL's host, lower-cased and without brackets, when it is a loopback host; nil otherwise.
    package static func loopbackHost(of url: String) -> String? {
        guard let (_, authority) = schemeAndAuthority(url), let instance = try? InstanceURL(parsing: "https://" + authority) else {
            return nil
        }
        return instance.isLoopback ? instance.host : nil
    }

    /// The URL without user info, query or fragment: enough to name a redirect target without
    /// repeating anything secret it might carry.
    package static func withoutCredentialsOrQuery(_ url: String) -> String {
        var text = Substring(url)
        if let cut = text.firstIndex(where: { $0 == "?" || $0 == "#" }) { text = text[..<cut] }
        if let schemeEnd = text.firstRange(of: "://") {
            let rest = text[schemeEnd.upperBound...]
            let authorityEnd = rest.firstIndex(of: "/") ?? rest.endIndex
            if let at = rest[..<authorityEnd].lastIndex(of: "@") {
                text = text[..<schemeEnd.upperBound] + rest[rest.index(after: at)...]
            }
        }
        return String(text)
    }

    /// The lower-cased scheme and the authority without user info; nil without `scheme://`.
    /// Read on the UTF-8 bytes: every byte looked for is ASCII, which never occurs inside the
    /// encoding of another character. A request's URL is checked before every send: this
    /// reads its bytes in place instead of walking the string's view of them.
    private static func schemeAndAuthority(_ url: String) -> (scheme: String, authority: Substring)? {
        var text = url
        let offsets = text.withUTF8 { bytes -> (colon: Int, start: Int, end: Int)? in
            guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")), bytes.count - colon >= 3,
                bytes[colon + 1] == UInt8(ascii: "/"), bytes[colon + 2] == UInt8(ascii: "/")
            else { return nil }
            var (start, end) = (colon + 3, colon + 3)
            while end < bytes.count {
                let byte = bytes[end]
                if byte == UInt8(ascii: "/") || byte == UInt8(ascii: "?") || byte == UInt8(ascii: "#") { break }
                if byte == UInt8(ascii: "@") { start = end + 1 }
                end += 1
            }
            return (colon, start, end)
        }
        guard let offsets else { return nil }
        let view = text.utf8
        let index = { (offset: Int) in view.index(view.startIndex, offsetBy: offset) }
        return (text[..<index(offsets.colon)].lowercased(), text[index(offsets.start)..<index(offsets.end)])
    }
}
