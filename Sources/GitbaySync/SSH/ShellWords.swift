/// A command line read into argv the way a POSIX shell splits words, and nothing more: what
/// `$GITBAY_SYNC_SSH` holds, as git reads `GIT_SSH_COMMAND` (`ssh -F "my config" -i key`).
/// No shell ever runs.
///
/// - words are separated by runs of unquoted spaces, tabs and newlines;
/// - inside `'…'` every character stands for itself;
/// - inside `"…"` every character stands for itself except `\` before `"`, `\`, `$`, `` ` ``
///   (that character) or a newline (nothing);
/// - outside quotes `\` makes the next character stand for itself (a newline: nothing);
/// - `''` or `""` is an empty word.
///
/// What a shell would act on instead of reading it as text is refused rather than passed on
/// as text the user did not mean: an unquoted `$`, `` ` ``, `;`, `&`, `|`, `<`, `>`, `(`, `)`
/// or a `#` starting a word, and a `$` or `` ` `` inside double quotes. So is an unclosed
/// quote and a final lone `\`.
enum ShellWords {
    enum Failure: Error, Equatable, CustomStringConvertible {
        case unclosedQuote(Character)
        case trailingBackslash
        /// A character a shell would act on: no shell runs here to do it.
        case shellSyntax(Character)

        var description: String {
            switch self {
            case .unclosedQuote(let quote): "it leaves a \(quote) unclosed"
            case .trailingBackslash: "it ends with a lone \\"
            case .shellSyntax(let character):
                "it holds an unquoted \(character), which a shell would act on; no shell runs it here, so write the words out (quote the character to mean it)"
            }
        }
    }

    private static let operators: Set<Character> = ["$", "`", ";", "&", "|", "<", ">", "(", ")"]

    /// The words of `line`.
    static func split(_ line: String) throws(Failure) -> [String] {
        var words: [String] = []
        var word: String?
        var rest = Substring(line)
        while let character = rest.popFirst() {
            switch character {
            case " ", "\t", "\n":
                if let done = word { words.append(done) }
                word = nil
            case "'":
                guard let end = rest.firstIndex(of: "'") else { throw .unclosedQuote("'") }
                word = (word ?? "") + rest[..<end]
                rest = rest[rest.index(after: end)...]
            case "\"":
                word = (word ?? "") + (try doubleQuoted(&rest))
            case "\\":
                guard let next = rest.popFirst() else { throw .trailingBackslash }
                if next != "\n" { word = (word ?? "") + String(next) }
            case "#" where word == nil:
                throw .shellSyntax("#")
            case _ where operators.contains(character):
                throw .shellSyntax(character)
            default:
                word = (word ?? "") + String(character)
            }
        }
        if let done = word { words.append(done) }
        return words
    }

    /// The text of a double-quoted part, its opening quote already read; leaves `rest` after
    /// the closing one.
    private static func doubleQuoted(_ rest: inout Substring) throws(Failure) -> String {
        var text = ""
        while let character = rest.popFirst() {
            switch character {
            case "\"":
                return text
            case "\\" where rest.first.map({ "\"\\$`\n".contains($0) }) == true:
                let escaped = rest.removeFirst()
                if escaped != "\n" { text.append(escaped) }
            case "$", "`":
                throw .shellSyntax(character)
            default:
                text.append(character)
            }
        }
        throw .unclosedQuote("\"")
    }

    /// A `gitbay-sync` command line for the user to copy, each word quoted as a POSIX shell
    /// reads it back: an account name or URL is whatever a server or the user gave, and is
    /// data on the line, never code.
    static func gitbaySync(_ words: any CustomStringConvertible...) -> String {
        (["gitbay-sync"] + words.map { quoted($0.description) }).joined(separator: " ")
    }

    /// `word` as one word of a command line that `split(_:)`, a shell and gitbay's SSH access
    /// all read back as it is: as it is when it holds only ASCII letters, digits and
    /// `@%+=:,./_-`, else in single quotes, each `'` inside written `'\''`.
    static func quoted(_ word: String) -> String {
        let plain =
            !word.isEmpty
            && word.unicodeScalars.allSatisfy { scalar in
                (scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar)))
                    || "@%+=:,./_-".unicodeScalars.contains(scalar)
            }
        return plain ? word : ShellQuote.posix(word)
    }
}
