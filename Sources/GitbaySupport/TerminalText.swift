/// Text from outside this program (a server's answer, a push payload, what an older version
/// stored) made safe to print on a terminal.
///
/// A terminal acts on control characters (`ESC [ 2 J` clears the screen, `ESC ] 0 ;` sets
/// the window title, a line break starts a line that looks like our own), and Unicode's bidi
/// overrides and isolates reorder what follows them. Each of these is written as a Swift
/// string escape, so it is seen rather than obeyed: `\t`, `\n`, `\r`, and `\u{1B}` (hex, at
/// least two digits) for the rest. A backslash is written `\\`, so the form reads back
/// unambiguously. Everything else, other scripts included, is printed as it is.
package enum TerminalText {
    /// `text` with every scalar that `needsEscaping` written as its escape.
    package static func escaped(_ text: some StringProtocol) -> String {
        guard text.unicodeScalars.contains(where: needsEscaping) else { return String(text) }
        var result = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\\": result += "\\\\"
            case "\t": result += "\\t"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case _ where needsEscaping(scalar):
                let hex = String(scalar.value, radix: 16, uppercase: true)
                result += "\\u{" + (hex.count < 2 ? "0" : "") + hex + "}"
            default:
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    /// True for C0 controls, DEL, C1 controls, the bidi embeddings, overrides and isolates,
    /// the Unicode line and paragraph separators, and the backslash that starts an escape.
    package static func needsEscaping(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F: true
        case 0x202A...0x202E, 0x2066...0x2069: true
        case 0x2028, 0x2029: true
        case 0x5C: true
        default: false
        }
    }
}

extension String.StringInterpolation {
    /// `"\(escaped: label)"`: outside text as `TerminalText.escaped` writes it.
    package mutating func appendInterpolation(escaped text: some StringProtocol) {
        appendLiteral(TerminalText.escaped(text))
    }
}
