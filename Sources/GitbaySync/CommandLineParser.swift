/// Turns argv into an `Invocation`. A pure function: it reads nothing and prints nothing.
///
/// The global options come first, then the command is found by its words in the registry,
/// then the command reads the rest of the line with its own options alone.
package enum CommandLineParser {
    static func parse(_ arguments: [String]) throws(UsageError) -> Invocation {
        let tokens = ArgumentTokens(arguments, valueOptions: CommandRegistry.valueOptionNames)
        if let tokenError = tokens.error {
            throw UsageError(tokenError, command: knownWords(tokens.positionals))
        }
        if let request = try helpOrVersion(tokens) {
            return Invocation(request: request, global: tokens.global)
        }
        let match = try CommandRegistry.find(tokens.positionals)
        if tokens.wantsHelp { return Invocation(request: .help(topic: match.spec.words), global: tokens.global) }
        // `status --version` asks for the version as much as `--version` does; running the
        // command instead would ignore what was asked.
        if tokens.wantsVersion { return Invocation(request: .version, global: tokens.global) }
        return Invocation(request: .command(try command(match, arguments)), global: tokens.global)
    }

    /// What a line that runs no command asks for: help or the version, nil for a command.
    private static func helpOrVersion(_ tokens: ArgumentTokens) throws(UsageError) -> Invocation.Request? {
        let positionals = tokens.positionals
        if positionals.first == "help" {
            let topic = Array(positionals.dropFirst())
            if !topic.isEmpty && !CommandRegistry.isGroup(topic) { _ = try CommandRegistry.find(topic) }
            return .help(topic: topic.isEmpty ? nil : topic)
        }
        if tokens.wantsVersion && positionals.isEmpty { return .version }
        if positionals.isEmpty {
            if tokens.wantsHelp || tokens.options.isEmpty { return .help(topic: nil) }
            throw UsageError("option '\(tokens.options[0].name)' needs a command before it")
        }
        if tokens.wantsHelp && CommandRegistry.isGroup(positionals) { return .help(topic: positionals) }
        return nil
    }

    /// The command, reading the line again with its own options alone: an option another
    /// command takes a value for cannot swallow this command's words.
    private static func command(_ match: CommandRegistry.Match, _ arguments: [String]) throws(UsageError) -> any CommandDefinition {
        let tokens = ArgumentTokens(arguments, valueOptions: CommandRegistry.valueOptionNames(match.spec.options))
        var rest = tokens.positionals
        if let start = rest.firstIndex(of: match.spec.words[0]) {
            rest.removeSubrange(start..<min(rest.count, start + match.spec.words.count))
        }
        let input = try CommandInput(spec: match.spec, arguments: rest, options: tokens.options)
        do {
            return try match.command.init(input)
        } catch {
            throw UsageError(error.message, command: error.commandWords ?? match.spec.words)
        }
    }

    /// Whether the command line asks for `--json`, even when it cannot be parsed: the error
    /// is then printed as JSON too.
    package static func asksForJSON(_ arguments: [String]) -> Bool {
        ArgumentTokens(arguments, valueOptions: CommandRegistry.valueOptionNames).global.json
    }

    /// The words of the command (or command group) that `positionals` start with, if any.
    private static func knownWords(_ positionals: [String]) -> [String]? {
        guard let first = positionals.first, first != "help" else { return nil }
        if let match = try? CommandRegistry.find(positionals) { return match.spec.words }
        return CommandRegistry.isGroup([first]) ? [first] : nil
    }
}
