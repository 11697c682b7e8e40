import GitbayReconcile
import GitbaySupport
/// Turns argv into an `Invocation`. A pure function: it reads nothing and prints nothing.
///
/// Accepts options before or after the command words, `--opt value` and `--opt=value`, `--` to
/// end options, `-v` repeated (or `-vv`), and `-h`.
package enum CommandLineParser {
    package static func parse(_ arguments: [String]) throws(UsageError) -> Invocation {
        let tokens = tokenise(arguments)
        let (global, positionals, options) = (tokens.global, tokens.positionals, tokens.options)
        let (wantsHelp, wantsVersion) = (tokens.wantsHelp, tokens.wantsVersion)
        if let tokenError = tokens.error {
            throw UsageError(tokenError, command: knownWords(positionals))
        }

        if positionals.first == "help" {
            let topic = Array(positionals.dropFirst())
            if !topic.isEmpty && !CommandTable.isGroup(topic) { _ = try resolve(topic) }
            return Invocation(command: .help(topic: topic.isEmpty ? nil : topic), global: global)
        }
        if wantsVersion && positionals.isEmpty { return Invocation(command: .version, global: global) }
        if positionals.isEmpty {
            if wantsHelp || options.isEmpty { return Invocation(command: .help(topic: nil), global: global) }
            throw UsageError("option '\(options[0].name)' needs a command before it")
        }

        if wantsHelp && CommandTable.isGroup(positionals) {
            return Invocation(command: .help(topic: positionals), global: global)
        }
        let (spec, rest) = try resolve(positionals)
        if wantsHelp { return Invocation(command: .help(topic: spec.words), global: global) }
        // `status --version` asks for the version as much as `--version` does; running the
        // command instead would ignore what was asked.
        if wantsVersion { return Invocation(command: .version, global: global) }

        var parsed = CommandSpec.Parsed(arguments: rest, values: [:], flags: [])
        for (name, value) in options {
            guard let option = spec.options.first(where: { $0.name == name }) else {
                let known = spec.options.map(\.name) + GlobalOption.all.map(\.name)
                throw UsageError("unknown option '\(name)' for '\(spec.name)'" + hint(for: name, among: known), command: spec.words)
            }
            if parsed.values[name] != nil || parsed.flags.contains(name) {
                throw UsageError("option '\(name)' is given twice", command: spec.words)
            }
            if option.valueName == nil {
                guard value == nil else { throw UsageError("option '\(name)' takes no value", command: spec.words) }
                parsed.flags.insert(name)
            } else {
                parsed.values[name] = value
            }
        }
        let required = spec.arguments.filter { !$0.optional }.count
        if rest.count < required {
            let missing = spec.arguments[rest.count]
            throw UsageError("'\(spec.name)' needs <\(missing.name)>: \(missing.help)", command: spec.words)
        }
        if rest.count > spec.arguments.count {
            throw UsageError("unexpected argument '\(rest[spec.arguments.count])' for '\(spec.name)'", command: spec.words)
        }
        do {
            return Invocation(command: try spec.build(parsed), global: global)
        } catch {
            throw UsageError(error.message, command: error.commandWords ?? spec.words)
        }
    }

    /// A command line split into global options, command options and positional words.
    struct Tokens {
        var global = GlobalOptions()
        var positionals: [String] = []
        var options: [(name: String, value: String?)] = []
        var wantsHelp = false
        var wantsVersion = false
        /// The first mistake found; reported once the command words are known, so that its
        /// message can point at the command's usage.
        var error: String?
    }

    /// Whether the command line asks for `--json`, even when it cannot be parsed: the error
    /// is then printed as JSON too.
    package static func asksForJSON(_ arguments: [String]) -> Bool {
        tokenise(arguments).global.json
    }

    static func tokenise(_ arguments: [String]) -> Tokens {
        var tokens = Tokens()
        var index = 0
        var optionsEnded = false
        while index < arguments.count {
            let token = arguments[index]
            index += 1
            if optionsEnded || token == "-" || !token.hasPrefix("-") {
                tokens.positionals.append(token)
                continue
            }
            if token == "--" {
                optionsEnded = true
                continue
            }
            if !token.hasPrefix("--") {
                // Short flags: -h, -v, -vv.
                let flags = token.dropFirst()
                if let unknown = flags.first(where: { $0 != "h" && $0 != "v" }) {
                    // `-json` is a long option with one dash too few, not the flags j, s, o, n.
                    let long = "-" + token
                    tokens.error = tokens.error ?? (CommandTable.longOptionNames.contains(long)
                        ? "unknown option '\(token)'. Did you mean '\(long)'?"
                        : "unknown option '-\(unknown)'; the short options are -h and -v")
                    continue
                }
                for flag in flags {
                    if flag == "h" { tokens.wantsHelp = true } else { tokens.global.verbosity += 1 }
                }
                continue
            }
            var name = token
            var value: String?
            if let equals = token.firstIndex(of: "=") {
                name = String(token[..<equals])
                value = String(token[token.index(after: equals)...])
            }
            if CommandTable.valueOptions.contains(name), value == nil {
                guard index < arguments.count else {
                    tokens.error = tokens.error ?? "option '\(name)' needs a value"
                    break
                }
                value = arguments[index]
                index += 1
            }
            if value != nil, ["--json", "--verbose", "--help", "--version"].contains(name) {
                tokens.error = tokens.error ?? "option '\(name)' takes no value"
                continue
            }
            switch name {
            case "--json": tokens.global.json = true
            case "--verbose": tokens.global.verbosity += 1
            case "--help": tokens.wantsHelp = true
            case "--version": tokens.wantsVersion = true
            case "--db":
                guard let value, !value.isEmpty else {
                    tokens.error = tokens.error ?? "option '--db' needs a path to the state database"
                    continue
                }
                tokens.global.databasePath = value
            default: tokens.options.append((name, value))
            }
        }
        return tokens
    }

    /// Finds the command the leading words name; returns it with the words left over.
    static func resolve(_ words: [String]) throws(UsageError) -> (CommandSpec, [String]) {
        let first = words[0]
        if let aliased = CommandTable.all.first(where: { $0.aliases.contains(first) }) {
            return (aliased.named(first), Array(words.dropFirst()))
        }
        let family = CommandTable.all.filter { $0.words[0] == first }
        guard !family.isEmpty else {
            throw UsageError("unknown command '\(first)'" + hint(for: first, among: CommandTable.commandNames))
        }
        if words.count > 1, let sub = family.first(where: { $0.words.count == 2 && $0.words[1] == words[1] }) {
            return (sub, Array(words.dropFirst(2)))
        }
        if let plain = family.first(where: { $0.words.count == 1 }) {
            return (plain, Array(words.dropFirst()))
        }
        let subcommands = family.map { $0.words[1] }
        guard words.count > 1 else {
            throw UsageError("'\(first)' needs a subcommand: \(subcommands.joined(separator: ", "))", command: [first])
        }
        throw UsageError(
            "unknown subcommand '\(words[1])' for '\(first)'; one of: \(subcommands.joined(separator: ", "))"
                + hint(for: words[1], among: subcommands),
            command: [first]
        )
    }

    /// The words of the command (or command group) that `positionals` start with, if any.
    private static func knownWords(_ positionals: [String]) -> [String]? {
        guard let first = positionals.first, first != "help" else { return nil }
        if let (spec, _) = try? resolve(positionals) { return spec.words }
        return CommandTable.isGroup([first]) ? [first] : nil
    }

    private static func hint(for word: String, among candidates: [String]) -> String {
        NearMiss.suggestion(for: word, among: candidates).map { ". Did you mean '\($0)'?" } ?? ""
    }
}
