import GitbayReconcile
import GitbaySupport

/// The text of `--help`, made from the command registry and wrapped to a width.
enum HelpText {
    static let version = "0.1.0"
    /// The date of this version, as the manual page gives it; it changes with `version`.
    static let versionDate = "2026-12-01"

    /// Every exit code, in a few words each.
    static let exitCodes = "Exit codes: " + ExitCode.allCases.map { "\($0.rawValue) \($0.inBrief)" }.joined(separator: ", ") + "."

    static func program(width: Int = TextLayout.defaultWidth) -> String {
        var lines = TextLayout.wrap(
            "gitbay-sync \(version): keeps this device's gitbay push registration true for every signed-in account.", width: width)
        lines += ["", "Usage: gitbay-sync <command> [options]"]
        let groups = CommandGroup.allCases.map { group in (group, commandRows(CommandRegistry.specs.filter { $0.group == group })) }
        let labelWidth = groups.flatMap(\.1).map(\.label.count).max()
        for (group, rows) in groups where !rows.isEmpty {
            lines += ["", "\(group.title):"] + TextLayout.columns(rows, width: width, labelWidth: labelWidth)
        }
        lines += ["", "Options for every command:"] + optionLines(GlobalOptions.specs, width: width)
        lines += [""] + TextLayout.wrap(exitCodes, width: width)
        lines += [""] + TextLayout.wrap("See 'gitbay-sync <command> --help' for a command's details and examples.", width: width)
        return lines.joined(separator: "\n")
    }

    static func command(_ spec: CommandSpec, width: Int = TextLayout.defaultWidth) -> String {
        var lines = usageLines(spec, width: width)
        lines += [""] + TextLayout.wrap(spec.summary, width: width)
        lines += [""] + TextLayout.prose(spec.discussion, width: width)
        if !spec.arguments.isEmpty {
            let labels = spec.arguments.map { "<\($0.name)>" }
            lines += ["", "Arguments:"] + TextLayout.columns(zip(labels, spec.arguments.map(\.help)).map { ($0, $1) }, width: width)
        }
        if !spec.options.isEmpty {
            lines += ["", "Options:"] + optionLines(spec.options, width: width)
        }
        lines += ["", "Options for every command:"] + optionLines(GlobalOptions.specs, width: width)
        if !spec.examples.isEmpty {
            lines += ["", "Examples:"] + exampleLines(spec.examples, width: width)
        }
        return lines.joined(separator: "\n")
    }

    /// The help of a command group such as `device`: its usage and its commands.
    static func group(_ first: String, width: Int = TextLayout.defaultWidth) -> String {
        var lines = usageLines(parts: groupUsageParts(first), words: 2, width: width)
        lines += ["", "Commands:"] + TextLayout.columns(commandRows(CommandRegistry.group(first)), width: width)
        lines += [""] + TextLayout.wrap("See 'gitbay-sync \(first) <subcommand> --help' for a command's details and examples.", width: width)
        return lines.joined(separator: "\n")
    }

    static func groupUsage(_ first: String) -> String {
        groupUsageParts(first).joined(separator: " ")
    }

    private static func groupUsageParts(_ first: String) -> [String] {
        ["gitbay-sync", first, "<\(CommandRegistry.group(first).map { $0.words[1] }.joined(separator: "|"))>", "[options]"]
    }

    /// The usage line for command words (a command or a group), nil when they name neither.
    static func usage(_ words: [String]) -> String? {
        if CommandRegistry.isGroup(words) { return groupUsage(words[0]) }
        return (try? CommandRegistry.find(words))?.spec.usage
    }

    /// The `Usage:` lines for command words (a command or a group) as a usage error shows them,
    /// wrapped to `width`; nil when the words name neither.
    static func usageLines(_ words: [String], width: Int) -> [String]? {
        if CommandRegistry.isGroup(words) { return usageLines(parts: groupUsageParts(words[0]), words: 2, width: width) }
        return (try? CommandRegistry.find(words)).map { usageLines(parts: $0.spec.usageParts, words: 1 + $0.spec.words.count, width: width) }
    }

    /// The help for a topic given as command words (already checked by the parser).
    static func topic(_ words: [String]?, width: Int = TextLayout.defaultWidth) -> String {
        guard let words else { return program(width: width) }
        if CommandRegistry.isGroup(words) { return group(words[0], width: width) }
        guard let match = try? CommandRegistry.find(words) else { return program(width: width) }
        return command(match.spec, width: width)
    }

    /// A command's usage line and its aliases', each wrapped.
    private static func usageLines(_ spec: CommandSpec, width: Int) -> [String] {
        let words = 1 + spec.words.count
        return usageLines(parts: spec.usageParts, words: words, width: width)
            + spec.aliases.flatMap { usageLines(parts: spec.named($0).usageParts, words: words, width: width, lead: "   or: ") }
    }

    /// A usage line wrapped after its first `words` parts (the program and command words):
    /// the lines after the first start under the first option or argument, or four columns
    /// in when that would leave too narrow a column.
    private static func usageLines(parts: [String], words: Int, width: Int, lead: String = "Usage: ") -> [String] {
        let head = lead + parts.prefix(words).joined(separator: " ")
        let under = head.count + 1
        let hanging = String(repeating: " ", count: width - under >= TextLayout.narrowestColumn ? under : 4)
        return TextLayout.fill([head] + parts.dropFirst(words), width: width, rest: hanging)
    }

    /// Each command's name and summary, and each alias's.
    private static func commandRows(_ specs: [CommandSpec]) -> [(label: String, text: String)] {
        specs.flatMap { spec in
            [(spec.name, spec.summary)] + spec.aliasWords.map { ($0.joined(separator: " "), "The same as `\(spec.name)`.") }
        }
    }

    private static func optionLines(_ options: [CommandSpec.Option], width: Int) -> [String] {
        let labels = options.map { option in option.valueName.map { "\(option.name) \($0)" } ?? option.name }
        return TextLayout.columns(zip(labels, options.map(\.help)).map { ($0, $1) }, width: width)
    }

    /// Each example as a comment and the line to type, a blank line between them: pasted
    /// into a shell whole, the comments are comments.
    static func exampleLines(_ examples: [CommandSpec.Example], width: Int) -> [String] {
        examples.enumerated().flatMap { index, example in
            (index == 0 ? [] : [""]) + TextLayout.wrap(example.comment, width: width, indent: "  # ")
                + TextLayout.shellLine(example.line, width: width, indent: "  ")
        }
    }
}
