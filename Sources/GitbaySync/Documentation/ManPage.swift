/// The manual page `gitbay-sync(1)`, in roff, made from the command list so that it says what
/// the parser accepts.
enum ManPage {
    /// The page's sections, in order.
    static let sections = [
        "NAME", "SYNOPSIS", "DESCRIPTION", "COMMANDS", "GLOBAL OPTIONS", "EXIT STATUS", "FILES", "ENVIRONMENT", "EXAMPLES", "SEE ALSO",
    ]

    /// The page for `commands`, listed by group; `date` is the version's, as `.TH` gives it.
    static func render(commands: [CommandSpec], globalOptions: [CommandSpec.Option], version: String, date: String) -> String {
        var lines = [
            ".\\\" gitbay-sync(1), as printed by gitbay-sync man",
            ".TH GITBAY\\-SYNC 1 \(Roff.quoted(date)) \(Roff.quoted("gitbay-sync \(version)")) \"User Commands\"",
            ".SH NAME",
            "gitbay\\-sync \\- keep this device's gitbay push registration true for every signed\\-in account",
            ".SH SYNOPSIS",
            ".nf",
            "\\fBgitbay\\-sync\\fR \\fIcommand\\fR [\\fIoptions\\fR] [\\fIarguments\\fR]",
            "\\fBgitbay\\-sync\\fR \\fB\\-\\-help\\fR",
            "\\fBgitbay\\-sync\\fR \\fB\\-\\-version\\fR",
            ".fi",
            ".SH DESCRIPTION",
        ]
        lines += ManPageText.description.flatMap { Roff.prose($0, width: exampleWidth) }
        lines.append(".SH COMMANDS")
        lines += grouped(commands) { [".SS \(Roff.quoted($0.title))"] + $1.flatMap(command) }
        lines.append(".SH GLOBAL OPTIONS")
        lines += globalOptions.flatMap(option)
        lines.append(".SH EXIT STATUS")
        lines += ExitCode.allCases.flatMap { code in [".TP", "\\fB\(code.rawValue)\\fR", Roff.line(ManPageText.meaning(of: code))] }
        lines.append(".SH FILES")
        lines += ManPageText.files.flatMap { [".TP", Roff.bold($0.path), Roff.line($0.about)] }
        lines.append(".SH ENVIRONMENT")
        lines += ManPageText.environment.flatMap { [".TP", Roff.bold($0.name), Roff.line($0.about)] }
        lines.append(".SH EXAMPLES")
        lines += grouped(commands.filter { !$0.examples.isEmpty }) { [".SS \(Roff.quoted($0.title))"] + $1.flatMap(examples) }
        lines += [
            ".SH SEE ALSO",
            ".BR systemctl (1),",
            ".BR systemd.timer (5),",
            ".BR launchd.plist (5),",
            ".BR sqlite3 (1)",
        ]
        return lines.joined(separator: "\n") + "\n"
    }

    /// `commands` by group, in the groups' order, each group's lines made by `lines`.
    static func grouped(_ commands: [CommandSpec], _ lines: (CommandGroup, [CommandSpec]) -> [String]) -> [String] {
        CommandGroup.allCases.flatMap { group in
            let members = commands.filter { $0.group == group }
            return members.isEmpty ? [] : lines(group, members)
        }
    }

    /// One command: its usage (and its aliases'), then indented below it its summary,
    /// discussion, arguments and options.
    static func command(_ spec: CommandSpec) -> [String] {
        // Each usage filled with a hanging indent and not justified, so that a long one wraps
        // within the page instead of running past its right edge; an option and its value
        // never part.
        var lines = [".PP", ".ad l", ".in +4n"]
        for (index, line) in ([usage(spec)] + spec.aliases.map { usage(spec.named($0)) }).enumerated() {
            lines += (index == 0 ? [] : [".br"]) + [".ti -4n", line]
        }
        lines += [".in -4n", ".ad b", ".RS 4", Roff.line(spec.summary)]
        lines += Roff.prose(spec.discussion, width: exampleWidth - 4)
        if !spec.arguments.isEmpty {
            lines += [".PP", "Arguments:"]
            lines += spec.arguments.flatMap { argument in
                [".TP", "<" + Roff.italic(argument.name) + ">" + (argument.optional ? " (optional)" : ""), Roff.line(argument.help)]
            }
        }
        if !spec.options.isEmpty {
            lines += [".PP", "Options:"]
            lines += spec.options.flatMap(option)
        }
        return lines + [".RE"]
    }

    /// The widest an example's line may be: with the indent `man` gives examples (12
    /// columns), what an 80-column terminal shows whole.
    static let exampleWidth = 66

    /// A command's examples: each comment and line to type, as `--help` shows them, the
    /// comment wrapped and the command broken as a shell line (` \` at each break) so that
    /// neither runs past an 80-column page.
    static func examples(_ spec: CommandSpec) -> [String] {
        spec.examples.flatMap { example in
            let comment = TextLayout.wrap(example.comment, width: exampleWidth, indent: "# ")
            let command = TextLayout.shellLine(example.line, width: exampleWidth, indent: "")
            return [".PP", ".RS 4", ".nf"] + (comment + command).map(Roff.line) + [".fi", ".RE"]
        }
    }

    /// The usage line of a command, with the command in bold and the placeholders in italics;
    /// as text it reads the same as `CommandSpec.usage`.
    static func usage(_ spec: CommandSpec) -> String {
        var parts = [Roff.bold((["gitbay-sync"] + spec.words).joined(separator: " "))]
        for option in spec.options {
            // `\ ` keeps an option and its value on one line, `\%` keeps a word unhyphenated.
            parts.append("\\%[" + Roff.bold(option.name) + (option.valueName.map { "\\ \\%" + Roff.italic($0) } ?? "") + "]")
        }
        for argument in spec.arguments {
            let placeholder = "\\%<" + Roff.italic(argument.name) + ">"
            parts.append(argument.optional ? "[" + placeholder + "]" : placeholder)
        }
        return Roff.guarded(parts.joined(separator: " "))
    }

    private static func option(_ option: CommandSpec.Option) -> [String] {
        [".TP", optionLabel(option), Roff.line(option.help)]
    }

    private static func optionLabel(_ option: CommandSpec.Option) -> String {
        Roff.bold(option.name) + (option.valueName.map { " " + Roff.italic($0) } ?? "")
    }
}
