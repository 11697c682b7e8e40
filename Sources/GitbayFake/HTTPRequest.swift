import Foundation

/// One parsed HTTP/1.x request.
struct HTTPRequest: Sendable {
    let method: String
    /// The request target as sent, e.g. `/api/v1/read?argv=whoami`.
    let target: String
    /// `HTTP/1.1` or `HTTP/1.0`.
    let version: String
    /// Header names lower-cased; repeated headers joined with `, `.
    let headers: [String: String]
    let body: [UInt8]
    /// The declared body was over the limit and was not read; the connection must close.
    let bodyExceededLimit: Bool

    /// The target without its query.
    var path: String {
        target.firstIndex(of: "?").map { String(target[..<$0]) } ?? target
    }

    /// The raw query without `?`, nil when there is none.
    var query: String? {
        target.firstIndex(of: "?").map { String(target[target.index(after: $0)...]) }
    }

    /// HTTP/1.1 keeps the connection unless told otherwise; HTTP/1.0 only when asked.
    var keepsAlive: Bool {
        let connection = headers["connection"]?.lowercased() ?? ""
        if version == "HTTP/1.0" { return connection.contains("keep-alive") }
        return !connection.contains("close")
    }

    /// The query's values for `name`, percent-decoded with `+` as a space (as Go decodes them);
    /// nil when one of the query's names or values is not valid percent-encoded UTF-8.
    func queryValues(_ name: String) -> [String]? {
        guard let query else { return [] }
        var values: [String] = []
        for pair in query.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let key = Self.percentDecoded(parts[0]) else { return nil }
            guard let value = parts.count > 1 ? Self.percentDecoded(parts[1]) : "" else { return nil }
            if key == name { values.append(value) }
        }
        return values
    }

    private static func percentDecoded(_ text: Substring) -> String? {
        var bytes: [UInt8] = []
        var iterator = Array(text.utf8).makeIterator()
        while let byte = iterator.next() {
            switch byte {
            case UInt8(ascii: "+"):
                bytes.append(UInt8(ascii: " "))
            case UInt8(ascii: "%"):
                guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else {
                    return nil
                }
                bytes.append(high << 4 | low)
            default:
                bytes.append(byte)
            }
        }
        return String(bytes: bytes, encoding: .utf8)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
