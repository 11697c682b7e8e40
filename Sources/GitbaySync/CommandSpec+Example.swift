extension CommandSpec {
    /// A command line that shows a command at work, and what it does.
    struct Example: Sendable, Equatable {
        /// What the line does, in a short sentence.
        let comment: String
        /// The words after `gitbay-sync`, as the program receives them.
        let arguments: [String]
        /// Shell text before `gitbay-sync`: what feeds its standard input (`printf %s "$TOKEN" |`).
        var before: String? = nil
        /// Shell text after the arguments: where the output goes (`| man -l -`, `> file`).
        var after: String? = nil

        init(_ comment: String, _ arguments: [String], before: String? = nil, after: String? = nil) {
            self.comment = comment
            self.arguments = arguments
            self.before = before
            self.after = after
        }

        /// The line as typed in a shell: the arguments quoted where a shell would read them
        /// otherwise.
        var line: String {
            ([before, "gitbay-sync"] + arguments.map(Self.quoted) + [after]).compactMap { $0 }.joined(separator: " ")
        }

        /// `word` as a POSIX shell reads it back: as it is when it holds only characters no
        /// shell acts on, else in single quotes.
        static func quoted(_ word: String) -> String {
            ShellWords.quoted(word)
        }
    }
}
