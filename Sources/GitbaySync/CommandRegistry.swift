/// Every command, in the order the help lists them: by group (`CommandGroup`'s order), then as
/// listed here. Adding a command is a file under Commands/ and a line here.
enum CommandRegistry {
    static let all: [any CommandDefinition.Type] = [
        LoginCommand.self,
        AccountsCommand.self,
        RemoveAccountCommand.self,
        PauseCommand.self,
        ResumeCommand.self,
        PreferCommand.self,
        DeviceSetTokenCommand.self,
        DeviceShowCommand.self,
        DeviceClearCommand.self,
        RunCommand.self,
        ServiceInstallCommand.self,
        ServiceUninstallCommand.self,
        ServiceShowCommand.self,
        StatusCommand.self,
        DoctorCommand.self,
        DevicesCommand.self,
        DevicesRemoveCommand.self,
        ResolveCommand.self,
        PushOnCommand.self,
        PushOffCommand.self,
        PushShowCommand.self,
        CompletionsCommand.self,
        ManCommand.self,
        VersionCommand.self,
    ]

    /// The description of every command, in registry order.
    static var specs: [CommandSpec] { all.map { $0.spec } }

    /// A command found by its words: its type, its spec under the name that was typed, and the
    /// words after its own.
    struct Match {
        let command: any CommandDefinition.Type
        let spec: CommandSpec
        let rest: [String]
    }

    /// Finds the command the leading words name.
    static func find(_ words: [String]) throws(UsageError) -> Match {
        guard let first = words.first else { throw UsageError("no command given") }
        if let aliased = all.first(where: { $0.spec.words.count == 1 && $0.spec.aliases.contains(first) }) {
            return Match(command: aliased, spec: aliased.spec.named(first), rest: Array(words.dropFirst()))
        }
        let family = all.filter { $0.spec.words[0] == first }
        guard !family.isEmpty else {
            throw UsageError("unknown command '\(first)'" + CommandSuggestion.hint(forCommand: first))
        }
        if words.count > 1, let sub = family.first(where: { $0.spec.words.count == 2 && $0.spec.words[1] == words[1] }) {
            return Match(command: sub, spec: sub.spec, rest: Array(words.dropFirst(2)))
        }
        if words.count > 1, let sub = family.first(where: { $0.spec.words.count == 2 && $0.spec.aliases.contains(words[1]) }) {
            return Match(command: sub, spec: sub.spec.named(words[1]), rest: Array(words.dropFirst(2)))
        }
        if let plain = family.first(where: { $0.spec.words.count == 1 }) {
            return Match(command: plain, spec: plain.spec, rest: Array(words.dropFirst()))
        }
        let subcommands = family.map { $0.spec.words[1] }
        guard words.count > 1 else {
            throw UsageError("'\(first)' needs a subcommand: \(subcommands.joined(separator: ", "))", command: [first])
        }
        let named = family.flatMap { [$0.spec.words[1]] + $0.spec.aliases }
        throw UsageError(
            "unknown subcommand '\(words[1])' for '\(first)'; one of: \(subcommands.joined(separator: ", "))"
                + NearMiss.hint(for: words[1], among: named),
            command: [first]
        )
    }

    /// The first words of every command and of their aliases, for "unknown command" suggestions.
    static var commandNames: [String] {
        var seen: [String] = []
        for word in specs.flatMap({ [$0.words] + $0.aliasWords }).map({ $0[0] }) where !seen.contains(word) { seen.append(word) }
        return seen + ["help"]
    }

    /// True when `words` is the first word of commands that all have a second word
    /// (`device`, `push`, `service`): a group, with help of its own but nothing to run.
    static func isGroup(_ words: [String]) -> Bool {
        guard words.count == 1 else { return false }
        let family = specs.filter { $0.words[0] == words[0] }
        return !family.isEmpty && family.allSatisfy { $0.words.count == 2 }
    }

    /// The commands of a group, in registry order.
    static func group(_ first: String) -> [CommandSpec] {
        specs.filter { $0.words[0] == first && $0.words.count == 2 }
    }

    /// Every long option of every command, and the global ones.
    static var longOptionNames: Set<String> {
        Set((specs.flatMap(\.options) + GlobalOptions.specs).map(\.name))
    }

    /// Every option of any command that takes a value, so that the command's words can be
    /// found before the command is known.
    static var valueOptionNames: Set<String> {
        valueOptionNames(specs.flatMap(\.options))
    }

    /// The options among `options` and the global ones that take a value.
    static func valueOptionNames(_ options: [CommandSpec.Option]) -> Set<String> {
        Set((options + GlobalOptions.specs).filter { $0.valueName != nil }.map(\.name))
    }
}
