/// How the fake's SSH front reads `$SSH_ORIGINAL_COMMAND` back into argv.
///
/// `ssh git@HOST -- token create --name x` does not send argv: the client joins its words
/// with single spaces into one string, which sshd hands the forced command as
/// `$SSH_ORIGINAL_COMMAND`. The front splits that string the way a POSIX shell splits words,
/// and does nothing else a shell would do:
/// - words are separated by runs of unquoted spaces, tabs and newlines;
/// - inside `'…'` every character stands for itself;
/// - inside `"…"` every character stands for itself except `\"` and `\\`, which stand for
///   `"` and `\`;
/// - outside quotes, `\` makes the next character stand for itself;
/// - `''` or `""` is an empty word; an unclosed quote or a final lone `\` is an error.
///
/// There is no expansion, substitution, globbing, redirection, comment or command separator:
/// `$HOME`, `` `id` ``, `*`, `;`, `|`, `>`, `#` are ordinary characters, and no shell ever
/// sees the string. A client keeps any argv intact by sending every word `quoted(_:)`; a
/// word of letters, digits and `@%+=:,./_-` needs no quotes.
public enum SSHCommandLine {
    /// Why a command line has no argv.
    public enum SplitError: Error, Equatable, Sendable {
        case unclosedQuote(Character)
        case trailingBackslash
    }

    /// The argv `line` spells.
    public static func split(_ line: String) throws(SplitError) -> [String] {
        var words: [String] = []
        var word = ""
        var inWord = false
        var characters = Substring(line)
        while let character = characters.popFirst() {
            switch character {
            case " ", "\t", "\n":
                if inWord { words.append(word) }
                word = ""
                inWord = false
            case "'":
                guard let end = characters.firstIndex(of: "'") else { throw .unclosedQuote("'") }
                word += characters[..<end]
                characters = characters[characters.index(after: end)...]
                inWord = true
            case "\"":
                word += try doubleQuoted(&characters)
                inWord = true
            case "\\":
                guard let next = characters.popFirst() else { throw .trailingBackslash }
                word.append(next)
                inWord = true
            default:
                word.append(character)
                inWord = true
            }
        }
        if inWord { words.append(word) }
        return words
    }

    /// The text of a double-quoted part, its opening quote already read; leaves `characters`
    /// after the closing one.
    private static func doubleQuoted(_ characters: inout Substring) throws(SplitError) -> String {
        var text = ""
        while let character = characters.popFirst() {
            switch character {
            case "\"":
                return text
            case "\\" where characters.first == "\"" || characters.first == "\\":
                text.append(characters.removeFirst())
            default:
                text.append(character)
            }
        }
        throw .unclosedQuote("\"")
    }

    /// `word` as one word of a command line: as it is when it needs no quotes, else in single
    /// quotes, each `'` inside written `'\''`.
    public static func quoted(_ word: String) -> String {
        let plain = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789@%+=:,./_-")
        if !word.isEmpty && word.allSatisfy(plain.contains) { return word }
        return "'" + word.replacing("'", with: #"'\''"#) + "'"
    }

    /// `argv` as one command line that `split(_:)` reads back as `argv`.
    public static func quoted(_ argv: [String]) -> String {
        argv.map(quoted).joined(separator: " ")
    }
}
