/// How a gitbay server shows a stored push token in `notifications device list`.
///
/// The server cuts the token after 8 bytes and appends `…`; Go's JSON encoder then writes one
/// U+FFFD for each byte that is not part of a valid UTF-8 sequence, so a character cut in two
/// shows as one U+FFFD per remaining byte. A token of 8 bytes or fewer shows as
/// `(short token)` from v1.32.1 on; v1.32.0 showed such a token in full.
package enum TokenDisplay {
    /// How many of a token's bytes the server shows, and the most a short token has.
    package static let shownBytes = 8
    package static let shortToken = "(short token)"

    /// The display of `token` by a v1.32.1 or later server.
    static func shown(_ token: some Collection<UInt8>) -> String {
        token.count <= shownBytes ? shortToken : goText(Array(token.prefix(shownBytes))) + "\u{2026}"
    }

    /// `bytes` as Go's JSON encoder writes them: valid UTF-8 as it is, U+FFFD for each other byte.
    static func goText(_ bytes: [UInt8]) -> String {
        var text = ""
        var index = 0
        while index < bytes.count {
            if let (scalar, length) = decodeScalar(bytes, at: index) {
                text.unicodeScalars.append(scalar)
                index += length
            } else {
                text.unicodeScalars.append("\u{FFFD}")
                index += 1
            }
        }
        return text
    }

    /// One UTF-8 sequence at `index`, by Go's rules (no overlongs, no surrogates, nothing past
    /// U+10FFFF, no truncated sequence); nil when the byte there does not start one.
    private static func decodeScalar(_ bytes: [UInt8], at index: Int) -> (Unicode.Scalar, Int)? {
        let lead = bytes[index]
        let (length, minimum): (Int, UInt32) =
            switch lead {
            case 0x00...0x7F: (1, 0)
            case 0xC2...0xDF: (2, 0x80)
            case 0xE0...0xEF: (3, 0x800)
            case 0xF0...0xF4: (4, 0x10000)
            default: (0, 0)
            }
        guard length > 0, index + length <= bytes.count else { return nil }
        var value = length == 1 ? UInt32(lead) : UInt32(lead) & (0xFF >> (length + 1))
        for offset in 1..<length {
            let byte = bytes[index + offset]
            guard byte & 0xC0 == 0x80 else { return nil }
            value = value << 6 | UInt32(byte & 0x3F)
        }
        guard value >= minimum, let scalar = Unicode.Scalar(value) else { return nil }
        return (scalar, length)
    }
}
