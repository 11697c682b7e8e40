import GitbaySupport

/// Writing text into a roff (man) page so that the formatter prints it as it is written.
enum Roff {
    /// `text` with every character roff would act on escaped: a backslash becomes `\e`, a
    /// hyphen `\-` (a minus a reader can copy into a shell), anything beyond ASCII `\[uXXXX]`.
    /// Text between backticks (a command, an option, a file name) is set in bold.
    static func escaped(_ text: String) -> String {
        var result = ""
        var bold = false
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\\": result += "\\e"
            case "-": result += "\\-"
            case "`":
                result += bold ? "\\fR" : "\\fB"
                bold.toggle()
            case _ where scalar.value > 0x7E || scalar.value < 0x20:
                result += scalar.value < 0x20 ? " " : "\\[u\(hex(scalar.value))]"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return bold ? result + "\\fR" : result
    }

    /// A text line: escaped, and guarded so that a leading `.` or `'` is not read as a request.
    static func line(_ text: String) -> String {
        guarded(escaped(text))
    }

    /// Already escaped text made safe to begin a line with.
    static func guarded(_ roff: String) -> String {
        roff.hasPrefix(".") || roff.hasPrefix("'") ? "\\&" + roff : roff
    }

    /// An argument of a request such as `.SS`, quoted.
    static func quoted(_ text: String) -> String {
        "\"" + escaped(text).replacingAll("\"", with: "\\(dq") + "\""
    }

    /// `text` in bold.
    static func bold(_ text: String) -> String { "\\fB" + escaped(text) + "\\fR" }

    /// `text` in italics, the way a placeholder is set.
    static func italic(_ text: String) -> String { "\\fI" + escaped(text) + "\\fR" }

    /// The requests and lines that set `text`'s blocks, each starting a paragraph; a command
    /// line wider than `width` is broken as a shell line.
    static func prose(_ text: String, width: Int = .max) -> [String] {
        Prose.blocks(text).flatMap { block in
            switch block {
            case .paragraph(let text): [".PP", line(text)]
            case .example(let lines):
                [".PP", ".RS 4", ".nf"] + lines.flatMap { TextLayout.shellLine($0, width: width, indent: "") }.map(line) + [".fi", ".RE"]
            }
        }
    }

    private static func hex(_ value: UInt32) -> String {
        let digits = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }
}

extension String {
    /// This string with every occurrence of `target` replaced by `replacement`.
    fileprivate func replacingAll(_ target: Character, with replacement: String) -> String {
        var result = ""
        for character in self { if character == target { result += replacement } else { result.append(character) } }
        return result
    }
}
