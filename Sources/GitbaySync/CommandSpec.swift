/// The description of one command: its words, arguments, options and help, and how its
/// parsed pieces become a `Command`.
struct CommandSpec: Sendable {
    struct Argument: Sendable {
        let name: String
        let optional: Bool
        let help: String
    }

    struct Option: Sendable {
        /// The long name with its dashes, e.g. `--label`.
        let name: String
        /// The value's placeholder, or nil for a flag.
        let valueName: String?
        let help: String
    }

    /// What a command line gave a command.
    struct Parsed {
        var arguments: [String]
        var values: [String: String]
        var flags: Set<String>

        func argument(_ index: Int) -> String? { index < arguments.count ? arguments[index] : nil }
    }

    let words: [String]
    /// Other first words that name the same command (`logout` for `remove-account`).
    var aliases: [String] = []
    let arguments: [Argument]
    let options: [Option]
    let summary: String
    let discussion: String
    let build: @Sendable (Parsed) throws(UsageError) -> Command

    var name: String { words.joined(separator: " ") }

    /// This command as named by one of its aliases, so that usage lines and messages use the
    /// word that was typed; the others, its own name first, become its aliases.
    func named(_ alias: String) -> CommandSpec {
        CommandSpec(
            words: [alias], aliases: [words[0]] + aliases.filter { $0 != alias }, arguments: arguments, options: options,
            summary: summary, discussion: discussion, build: build
        )
    }

    /// The usage line under another of its names.
    func usage(as word: String) -> String {
        named(word).usage
    }

    var usage: String {
        var parts = ["gitbay-sync"] + words
        for option in options {
            parts.append(option.valueName.map { "[\(option.name) \($0)]" } ?? "[\(option.name)]")
        }
        for argument in arguments {
            parts.append(argument.optional ? "[<\(argument.name)>]" : "<\(argument.name)>")
        }
        return parts.joined(separator: " ")
    }
}

/// The options every command takes.
enum GlobalOption {
    static let all: [CommandSpec.Option] = [
        .init(name: "--db", valueName: "PATH", help: "The state database (default: $GITBAY_SYNC_DB, else $XDG_STATE_HOME/gitbay-sync/state.db)."),
        .init(name: "--json", valueName: nil, help: "Print machine-readable JSON on stdout (shapes in the README)."),
        .init(name: "--verbose", valueName: nil, help: "Say more on stderr; -v, repeat for more (-vv)."),
        .init(name: "--help", valueName: nil, help: "Show help for gitbay-sync or a command (-h)."),
        .init(name: "--version", valueName: nil, help: "Show the version."),
    ]
}
