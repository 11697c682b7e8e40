/// What this device keeps of a push token it held, without keeping the token: enough to say
/// whether two records name the same token, and whether a listed row can be showing it.
package struct TokenIdentity: Sendable, Equatable, Hashable {
    /// SHA-256 of the token, lower-case hex; nil for a token recorded before fingerprints were
    /// kept, which is never taken to equal another.
    package let fingerprint: String?
    /// The token's length in bytes; nil when not recorded.
    package let length: Int?
    /// The token as a v1.32.1 or later server lists it; for a token recorded before
    /// fingerprints were kept, its first 8 bytes as they were recorded.
    package let shown: String

    package init(fingerprint: String?, length: Int?, shown: String) {
        self.fingerprint = fingerprint
        self.length = length
        self.shown = shown
    }

    /// The identity of `token`.
    package init(of token: Secret) {
        let bytes = Array(token.exposedValue.utf8)
        self.init(fingerprint: SHA256.hex(bytes), length: bytes.count, shown: TokenDisplay.shown(bytes))
    }

    /// True when both are known to be the same token.
    package func isSameToken(as other: TokenIdentity) -> Bool {
        fingerprint != nil && fingerprint == other.fingerprint
    }

    /// True when a row listed as `listed` can hold this token. A display is only a consistency
    /// check: many tokens share their first 8 bytes, and every short token shows alike.
    package func canBeShown(as listed: String) -> Bool {
        guard let fingerprint else {
            // Recorded before fingerprints: only the first 8 bytes are known.
            if listed == shown + "\u{2026}" { return true }
            return shown.utf8.count <= TokenDisplay.shownBytes && (listed == TokenDisplay.shortToken || listed == shown)
        }
        if listed == shown { return true }
        // v1.32.0 lists a token of 8 bytes or fewer in full.
        return (length ?? 0) <= TokenDisplay.shownBytes && SHA256.hex(listed.utf8) == fingerprint
    }
}
