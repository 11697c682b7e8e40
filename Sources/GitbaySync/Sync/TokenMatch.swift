/// How a server shows a token in `device list`, and whether a shown token is one of ours.
enum TokenMatch {
    /// The server's display of a token: its first 8 bytes and `…`, or `(short token)` for a
    /// token of 8 bytes or fewer.
    static func display(ofPrefix prefix: String, fullLength: Int) -> String {
        fullLength <= 8 ? shortToken : prefix + "…"
    }

    static let shortToken = "(short token)"

    /// True when `shown` (from `device list`) can be the token with this 8-byte prefix. A short
    /// token matches `(short token)` or, on v1.32.0 servers, itself in full.
    static func matches(shown: String, prefix: String) -> Bool {
        if shown == prefix + "…" { return true }
        if prefix.utf8.count < 8 || shown == shortToken { return shown == shortToken || shown == prefix }
        return false
    }
}
