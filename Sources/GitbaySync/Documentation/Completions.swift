/// A shell that `gitbay-sync completions` writes a completion script for.
package enum Shell: String, CaseIterable, Sendable {
    case bash, zsh, fish

    /// The shell a name given on the command line means, or a usage error naming those accepted.
    static func named(_ name: String) throws(UsageError) -> Shell {
        guard let shell = Shell(rawValue: name) else {
            let accepted = allCases.map(\.rawValue).joined(separator: ", ")
            throw UsageError("unknown shell '\(name)'; one of: \(accepted)", command: ["completions"])
        }
        return shell
    }
}

/// Shell completion scripts, made from the command list so that they offer what the parser accepts.
enum Completions {
    static func render(shell: Shell, commands: [CommandSpec], globalOptions: [CommandSpec.Option]) -> String {
        let model = CompletionModel(commands: commands, globalOptions: globalOptions)
        return switch shell {
        case .bash: BashCompletion.render(model)
        case .zsh: ZshCompletion.render(model)
        case .fish: FishCompletion.render(model)
        }
    }
}

/// What the completion scripts need to know, arranged for writing them.
struct CompletionModel {
    /// A word the shell may offer, with what it means and the group the help lists it in.
    struct Word {
        let word: String
        let about: String
        var group: CommandGroup = .shellAndReference
    }

    /// What a command's argument at `index` can be.
    struct ArgumentValues {
        enum Source { case accounts, words([String]) }
        let command: String
        let index: Int
        let source: Source
    }

    /// The first words: commands, groups, aliases, and `help`.
    let firstWords: [Word]
    /// The second words of each first word that has some (`device`, `devices`, `push`, `service`).
    let subcommands: [(first: String, words: [Word])]
    let twoWordCommands: [String]
    let oneWordCommands: [String]
    /// Each alias (its words, `logout` or `devices rm`) and the command it names.
    let aliases: [(alias: String, command: String)]
    let globalOptions: [CommandSpec.Option]
    /// The options of each command that has some.
    let options: [(command: String, options: [CommandSpec.Option])]
    /// Options followed by a value, of every command and the global ones.
    let valueOptions: [String]
    /// Options whose value is a file.
    let fileOptions: [String]
    /// Options whose value is one of a few words (`--token-store keyring|database`), and those words.
    let valueWords: [(option: String, words: [String])]
    let arguments: [ArgumentValues]

    /// The short forms the parser accepts for global options.
    static let shortForms = ["--help": "-h", "--verbose": "-v"]

    init(commands: [CommandSpec], globalOptions: [CommandSpec.Option]) {
        var firstWords: [Word] = []
        var subcommands: [(first: String, words: [Word])] = []
        for spec in commands where !firstWords.contains(where: { $0.word == spec.words[0] }) {
            let family = commands.filter { $0.words[0] == spec.words[0] }
            let seconds = family.filter { $0.words.count == 2 }.flatMap { second in
                [Word(word: second.words[1], about: second.summary)]
                    + second.aliases.map { Word(word: $0, about: "The same as `\(second.name)`.") }
            }
            let plain = family.first { $0.words.count == 1 }
            let about = plain?.summary ?? "Commands: \(family.map { $0.words[1] }.joined(separator: ", "))."
            firstWords.append(Word(word: spec.words[0], about: about, group: spec.group))
            if !seconds.isEmpty { subcommands.append((spec.words[0], seconds)) }
        }
        aliases = commands.flatMap { spec in spec.aliasWords.map { ($0.joined(separator: " "), spec.name) } }
        for spec in commands where spec.words.count == 1 {
            firstWords += spec.aliases.map { Word(word: $0, about: "The same as `\(spec.name)`.", group: spec.group) }
        }
        firstWords.append(Word(word: "help", about: "Show help for gitbay-sync or a command."))
        self.firstWords = firstWords
        self.subcommands = subcommands
        twoWordCommands = commands.filter { $0.words.count == 2 }.map(\.name)
        oneWordCommands = commands.filter { $0.words.count == 1 }.map(\.name)
        self.globalOptions = globalOptions
        options = commands.filter { !$0.options.isEmpty }.map { ($0.name, $0.options) }
        let allOptions = commands.flatMap(\.options) + globalOptions
        valueOptions = Self.unique(allOptions.filter { $0.valueName != nil }.map(\.name))
        fileOptions = Self.unique(allOptions.filter { $0.valueName == "PATH" }.map(\.name))
        var valueWords: [(option: String, words: [String])] = []
        for option in allOptions where !valueWords.contains(where: { $0.option == option.name }) {
            guard let name = option.valueName, name.contains("|") else { continue }
            valueWords.append((option.name, name.split(separator: "|").map(String.init)))
        }
        self.valueWords = valueWords
        arguments = commands.flatMap { spec in
            spec.arguments.enumerated().compactMap { index, argument in
                Self.source(of: argument).map { ArgumentValues(command: spec.name, index: index, source: $0) }
            }
        }
    }

    /// The aliases that stand for a command's first word (`logout`).
    var oneWordAliases: [(alias: String, command: String)] { aliases.filter { !$0.alias.contains(" ") } }
    /// The aliases that stand for a command's second word (`devices rm`).
    var twoWordAliases: [(alias: String, command: String)] { aliases.filter { $0.alias.contains(" ") } }

    /// Options followed by a value that is not a file.
    var otherValueOptions: [String] { valueOptions.filter { !fileOptions.contains($0) } }

    /// What an argument can be, by its name, when the script can offer it.
    private static func source(of argument: CommandSpec.Argument) -> ArgumentValues.Source? {
        switch argument.name {
        case "account": .accounts
        case "shell": .words(Shell.allCases.map(\.rawValue))
        default: nil
        }
    }

    private static func unique(_ names: [String]) -> [String] {
        var seen: [String] = []
        for name in names where !seen.contains(name) { seen.append(name) }
        return seen
    }
}

/// Quoting for the shells' single-quoted strings.
enum ShellQuote {
    /// `text` in single quotes, for bash and zsh.
    static func posix(_ text: String) -> String {
        "'" + text.split(separator: "'", omittingEmptySubsequences: false).joined(separator: "'\\''") + "'"
    }

    /// `text` in single quotes, for fish (which escapes `\` and `'` inside them).
    static func fish(_ text: String) -> String {
        var result = "'"
        for character in text {
            if character == "\\" || character == "'" { result += "\\" }
            result.append(character)
        }
        return result + "'"
    }

    /// A help text as a shell shows it beside a word: without the backticks that mark code.
    static func about(_ text: String) -> String {
        text.filter { $0 != "`" }
    }
}
