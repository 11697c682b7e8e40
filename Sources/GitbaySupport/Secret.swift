/// A secret string (an API token or a push token) that never prints itself.
///
/// Its description is `<redacted>`; only the transport (to set `Authorization`) and the device
/// commands (to send the push token as `stdin`) read `exposedValue`.
package struct Secret: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible {
    /// The raw value. Read it only where it must go on the wire or into the state database.
    package let exposedValue: String

    package init(_ value: String) {
        self.exposedValue = value
    }

    package var description: String { "<redacted>" }
    package var debugDescription: String { "<redacted>" }

    /// The first `count` bytes, for display (by default as many as a server shows).
    package func prefix(bytes count: Int = TokenDisplay.shownBytes) -> String {
        let bytes = Array(exposedValue.utf8.prefix(count))
        return String(decoding: bytes, as: UTF8.self)
    }
}
