/// The description of one command: its words, group, arguments, options, help and examples.
/// The parser, the help, the usage lines, the man page and the completions read it.
struct CommandSpec: Sendable {
    struct Argument: Sendable, Equatable {
        let name: String
        let optional: Bool
        let help: String
    }

    struct Option: Sendable, Equatable {
        /// The long name with its dashes, e.g. `--label`.
        let name: String
        /// The value's placeholder, or nil for a flag.
        let valueName: String?
        let help: String
    }

    var words: [String]
    /// Other words for the command's last word that name the same command: `logout` for
    /// `remove-account`, `rm` for `devices remove`.
    var aliases: [String] = []
    /// Where the help lists it.
    let group: CommandGroup
    let arguments: [Argument]
    let options: [Option]
    let summary: String
    let discussion: String
    /// Command lines that show it at work, each with what it does.
    var examples: [Example] = []

    var name: String { words.joined(separator: " ") }

    /// The words of each alias: `["devices", "rm"]`.
    var aliasWords: [[String]] { aliases.map { words.dropLast() + [$0] } }

    /// This command as named by one of its aliases, so that usage lines and messages use the
    /// word that was typed; the others, its own last word first, become its aliases.
    func named(_ alias: String) -> CommandSpec {
        var spec = self
        spec.words = words.dropLast() + [alias]
        spec.aliases = [words[words.count - 1]] + aliases.filter { $0 != alias }
        return spec
    }

    /// The usage line under another of its names.
    func usage(as word: String) -> String {
        named(word).usage
    }

    var usage: String { usageParts.joined(separator: " ") }

    /// The usage line in the pieces it may be wrapped between: the program and command words,
    /// then each option and argument whole (`[--every DURATION]`).
    var usageParts: [String] {
        var parts = ["gitbay-sync"] + words
        for option in options {
            parts.append(option.valueName.map { "[\(option.name) \($0)]" } ?? "[\(option.name)]")
        }
        for argument in arguments {
            parts.append(argument.optional ? "[<\(argument.name)>]" : "<\(argument.name)>")
        }
        return parts
    }
}

extension CommandSpec.Argument {
    /// The account a command acts on.
    static let account = Self(
        name: "account", optional: false,
        help: "An account as `gitbay-sync accounts` names it: user@host or user@host:port, or the user name alone when no other account has it."
    )
    /// The one account a listing is narrowed to.
    static let onlyAccount = Self(name: "account", optional: true, help: "Only this account.")
}

extension CommandSpec.Option {
    /// The period of `run --every` and of the installed timer.
    static let every = Self(name: "--every", valueName: "DURATION", help: "The period: 30s, 15m, 1h, 1h30m, 1d (10s to 7d).")
}
