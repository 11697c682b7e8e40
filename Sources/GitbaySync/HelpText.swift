import GitbayReconcile
import GitbaySupport

/// The text of `--help`, made from the command registry.
enum HelpText {
    static let version = "0.1.0"
    /// The date of this version, as the manual page gives it; it changes with `version`.
    static let versionDate = "2026-12-01"

    static func program() -> String {
        var lines = [
            "gitbay-sync \(version): keeps this device's gitbay push registration true for every signed-in account.",
            "",
            "Usage: gitbay-sync <command> [options]",
        ]
        let width = CommandRegistry.specs.map(\.name.count).max() ?? 0
        for group in CommandGroup.allCases {
            let specs = CommandRegistry.specs.filter { $0.group == group }
            guard !specs.isEmpty else { continue }
            lines += ["", "\(group.title):"]
            for spec in specs {
                lines.append("  " + pad(spec.name, width) + "  " + spec.summary)
                for alias in spec.aliasWords {
                    lines.append("  " + pad(alias.joined(separator: " "), width) + "  The same as `\(spec.name)`.")
                }
            }
        }
        lines += ["", "Options for every command:"]
        lines += optionLines(GlobalOptions.specs)
        lines += [
            "",
            "Exit codes: 0 ok, 1 some accounts failed, 64 usage, 65 bad input data, 66 no state database,",
            "67 no such account, 69 server unavailable, 73 output not written, 74 state database unusable,",
            "75 busy (another gitbay-sync has the account or the database; try again), 77 token refused,",
            "78 unit file not written by gitbay-sync.",
            "",
            "See 'gitbay-sync <command> --help' for a command's details and examples.",
        ]
        return lines.joined(separator: "\n")
    }

    static func command(_ spec: CommandSpec) -> String {
        var lines = ["Usage: \(spec.usage)"] + spec.aliases.map { "   or: \(spec.usage(as: $0))" } + ["", spec.summary, ""]
        lines += spec.discussion.split(separator: "\n", omittingEmptySubsequences: false).map { String($0) }
        if !spec.arguments.isEmpty {
            lines += ["", "Arguments:"]
            let width = spec.arguments.map { $0.name.count + 2 }.max() ?? 0
            for argument in spec.arguments {
                lines.append("  " + pad("<\(argument.name)>", width) + "  " + argument.help)
            }
        }
        if !spec.options.isEmpty {
            lines += ["", "Options:"]
            lines += optionLines(spec.options)
        }
        lines += ["", "Options for every command:"]
        lines += optionLines(GlobalOptions.specs)
        if !spec.examples.isEmpty {
            lines += ["", "Examples:"] + exampleLines(spec.examples)
        }
        return lines.joined(separator: "\n")
    }

    /// Each example as a comment and the line to type, a blank line between them: pasted
    /// into a shell whole, the comments are comments.
    static func exampleLines(_ examples: [CommandSpec.Example]) -> [String] {
        examples.enumerated().flatMap { index, example in
            (index == 0 ? [] : [""]) + ["  # " + example.comment, "  " + example.line]
        }
    }

    /// The help of a command group such as `device`: its usage and its commands.
    static func group(_ first: String) -> String {
        let specs = CommandRegistry.group(first)
        let width = specs.map(\.name.count).max() ?? 0
        var lines = ["Usage: \(groupUsage(first))", "", "Commands:"]
        lines += specs.map { "  " + pad($0.name, width) + "  " + $0.summary }
        lines += ["", "See 'gitbay-sync \(first) <subcommand> --help' for a command's details."]
        return lines.joined(separator: "\n")
    }

    static func groupUsage(_ first: String) -> String {
        "gitbay-sync \(first) <\(CommandRegistry.group(first).map { $0.words[1] }.joined(separator: "|"))> [options]"
    }

    /// The usage line for command words (a command or a group), nil when they name neither.
    static func usage(_ words: [String]) -> String? {
        if CommandRegistry.isGroup(words) { return groupUsage(words[0]) }
        return (try? CommandRegistry.find(words))?.spec.usage
    }

    /// The help for a topic given as command words (already checked by the parser).
    static func topic(_ words: [String]?) -> String {
        guard let words else { return program() }
        if CommandRegistry.isGroup(words) { return group(words[0]) }
        guard let match = try? CommandRegistry.find(words) else { return program() }
        return command(match.spec)
    }

    private static func optionLines(_ options: [CommandSpec.Option]) -> [String] {
        let labels = options.map { option in option.valueName.map { "\(option.name) \($0)" } ?? option.name }
        let width = labels.map(\.count).max() ?? 0
        return zip(labels, options).map { "  " + pad($0, width) + "  " + $1.help }
    }

    private static func pad(_ text: String, _ width: Int) -> String {
        text + String(repeating: " ", count: max(0, width - text.count))
    }
}
