/// Text fitted to a terminal's width: words wrapped at spaces, never broken, so that only a
/// word longer than the width makes a line wider than it.
enum TextLayout {
    /// The width when neither `COLUMNS` nor a terminal gives one.
    static let defaultWidth = 80
    /// The narrowest column a description is wrapped into beside its label; narrower, it goes
    /// below the label.
    static let narrowestColumn = 24

    /// `words` filled into lines of at most `width`: the first begins with `first`, the others
    /// with `rest`. With a `continuation` (` \` for a shell line), every line but the last ends
    /// with it, and it counts toward the width.
    /// Colours (`TextStyle`) take no columns.
    static func fill(_ words: [String], width: Int, first: String = "", rest: String = "", continuation: String = "") -> [String] {
        var lines: [String] = []
        var line = first
        var empty = true
        // A line begun by a wrap with no word on it yet: the spaces that fell there are dropped.
        var fresh = false
        for (index, word) in words.enumerated() {
            if fresh && word.isEmpty { continue }
            let last = index == words.count - 1
            let reserve = last ? 0 : continuation.count
            if empty || fresh || columns(line) + 1 + columns(word) + reserve <= width {
                line += (empty || fresh ? "" : " ") + word
                fresh = false
            } else {
                lines.append(line + continuation)
                line = rest + word
                fresh = word.isEmpty
            }
            empty = false
        }
        lines.append(line)
        return lines
    }

    /// The columns `text` takes on a terminal: its characters but the colour sequences
    /// (`ESC [ … m`) `TextStyle` paints with.
    static func columns(_ text: String) -> Int {
        guard text.contains("\u{1B}") else { return text.count }
        var count = 0
        var inSequence = false
        for character in text {
            if inSequence {
                if character == "m" { inSequence = false }
            } else if character == "\u{1B}" {
                inSequence = true
            } else {
                count += 1
            }
        }
        return count
    }

    /// A command's lines as a terminal `width` columns wide shows them: each longer line
    /// wrapped at its spaces. What follows goes under the second column of a line that has
    /// one (an account's condition, after its name and two spaces) within the first half of
    /// the width, else four columns past the line's own indent. Nil: as they are (off a
    /// terminal, where a script or `grep` reads whole lines).
    static func fitted(_ lines: [String], width: Int?) -> [String] {
        guard let width else { return lines }
        return lines.flatMap { line -> [String] in
            guard columns(line) > width else { return [line] }
            let indent = String(line.prefix { $0 == " " })
            let body = line.dropFirst(indent.count)
            var hanging = indent + "    "
            if let gap = body.firstRange(of: "  ") {
                let second = body[gap.lowerBound...].firstIndex { $0 != " " } ?? body.endIndex
                let column = indent.count + columns(String(body[..<second]))
                if column <= width / 2 { hanging = String(repeating: " ", count: column) }
            }
            let words = body.split(separator: " ", omittingEmptySubsequences: false).map(String.init)
            return fill(words, width: width, first: indent, rest: hanging)
        }
    }

    /// A sentence or paragraph wrapped at its spaces.
    static func wrap(_ text: String, width: Int, indent: String = "", hanging: String? = nil) -> [String] {
        fill(words(text), width: width, first: indent, rest: hanging ?? indent)
    }

    /// A help text: each paragraph wrapped, each indented line (a command to type) kept whole
    /// and broken, if it must, as a shell line.
    static func prose(_ text: String, width: Int) -> [String] {
        var lines: [String] = []
        for block in Prose.blocks(text) {
            if !lines.isEmpty { lines.append("") }
            switch block {
            case .paragraph(let paragraph): lines += wrap(paragraph, width: width)
            case .example(let commands): lines += commands.flatMap { shellLine($0, width: width, indent: "  ") }
            }
        }
        return lines
    }

    /// A shell command line broken where a shell would split it (at a space outside quotes),
    /// every part but the last ending with ` \`, so that the lines pasted together are the
    /// same command.
    static func shellLine(_ line: String, width: Int, indent: String) -> [String] {
        fill(shellWords(line), width: width, first: indent, rest: indent + "    ", continuation: " \\")
    }

    /// Labels and their descriptions in two columns: the labels padded to the longest of
    /// `labelWidth` and their own, the descriptions wrapped beside them. When the column left
    /// is narrower than `narrowestColumn`, each description goes below its label.
    static func columns(_ rows: [(label: String, text: String)], width: Int, labelWidth: Int? = nil, indent: String = "  ") -> [String] {
        let labelWidth = labelWidth ?? rows.map(\.label.count).max() ?? 0
        let start = indent.count + labelWidth + 2
        guard width - start >= narrowestColumn else {
            return rows.flatMap { row in [indent + row.label] + wrap(row.text, width: width, indent: indent + "    ") }
        }
        return rows.flatMap { row in
            let label = row.label + String(repeating: " ", count: max(0, labelWidth - row.label.count))
            return wrap(row.text, width: width, indent: indent + label + "  ", hanging: String(repeating: " ", count: start))
        }
    }

    /// The words of `text`, split at runs of spaces and line breaks, but never inside code
    /// between backticks: a command to copy stays on one line.
    static func words(_ text: String) -> [String] {
        split(text, quotes: ["`"])
    }

    /// The words of a shell line: split at spaces outside single and double quotes, with a
    /// redirection or a pipe kept with the word after it (`> file`, `| man -l -` breaks before
    /// the `|`).
    static func shellWords(_ line: String) -> [String] {
        var words: [String] = []
        for word in split(line, quotes: ["'", "\""]) {
            if let last = words.last, ["<", ">", ">>", "|"].contains(last) {
                words[words.count - 1] = last + " " + word
            } else {
                words.append(word)
            }
        }
        return words
    }

    /// `text` split at spaces and line breaks outside the spans that `quotes` open and close.
    private static func split(_ text: String, quotes: Set<Character>) -> [String] {
        var words: [String] = []
        var word = ""
        var quote: Character?
        for character in text {
            if let open = quote {
                if character == open { quote = nil }
                word.append(character == "\n" ? " " : character)
            } else if character == " " || character == "\n" {
                if !word.isEmpty { words.append(word) }
                word = ""
            } else {
                if quotes.contains(character) { quote = character }
                word.append(character)
            }
        }
        if !word.isEmpty { words.append(word) }
        return words
    }
}
