/// The name a token minted by `login --ssh` is given on the server: what it is and which
/// install holds it, `gitbay-sync-<label>-<install marker>` (`gitbay-sync-work-laptop-gbs-k3x9q2`),
/// so that `token list` on the server tells it from the account's other tokens, and from
/// another install's. A server takes any name that is not empty; this one keeps to lower-case
/// letters, digits, `.`, `_` and `-`, so it reads the same everywhere and needs no quoting.
enum TokenName {
    /// The longest label part kept: a name stays short enough to read in a list.
    static let labelLimit = 32
    /// The longest name `--token-name` takes, in bytes.
    static let maximumBytes = 100

    /// The name for the install with this device label and install marker.
    static func forInstall(label: String, installMarker: String) -> String {
        var labelPart = sanitized(label)
        if labelPart.count > labelLimit { labelPart = trimmed(String(labelPart.prefix(labelLimit))) }
        return ["gitbay-sync", labelPart, sanitized(installMarker)].filter { !$0.isEmpty }.joined(separator: "-")
    }

    /// `text` lower-cased, every run of other characters than letters, digits, `.` and `_`
    /// one `-`, with no `-` or `.` at either end.
    static func sanitized(_ text: String) -> String {
        var result = ""
        for scalar in text.lowercased().unicodeScalars {
            let kept = scalar.isASCII && (("a"..."z").contains(scalar) || ("0"..."9").contains(scalar) || scalar == "." || scalar == "_")
            if kept {
                result.unicodeScalars.append(scalar)
            } else if !result.hasSuffix("-") {
                result += "-"
            }
        }
        return trimmed(result)
    }

    private static func trimmed(_ text: String) -> String {
        String(text.drop(while: { $0 == "-" || $0 == "." }).reversed().drop(while: { $0 == "-" || $0 == "." }).reversed())
    }

    /// The value of a `--token-name` option: the name as given, one line of visible text.
    static func option(_ text: String) throws(UsageError) -> String {
        guard !text.isEmpty, !text.allSatisfy(\.isWhitespace) else { throw UsageError("invalid value for --token-name: the name is empty") }
        guard !text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw UsageError("invalid value for --token-name: the name holds a control character (a line break, a tab, an escape)")
        }
        guard text.utf8.count <= maximumBytes else {
            throw UsageError("invalid value for --token-name: the name is \(text.utf8.count) bytes; at most \(maximumBytes)")
        }
        return text
    }
}
