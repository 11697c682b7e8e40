import Foundation
import TestSupport
import Testing

@testable import GitbaySync

@Suite("The manual page")
struct ManPageTests {
    static let page = ManPage.render(
        commands: CommandRegistry.specs, globalOptions: GlobalOptions.specs, version: HelpText.version, date: HelpText.versionDate)

    /// The page as a reader sees its words: font changes and guards gone, escapes undone.
    static func plain(_ roff: String) -> String {
        var text = roff
        for (escape, character) in [
            ("\\fB", ""), ("\\fI", ""), ("\\fR", ""), ("\\&", ""), ("\\%", ""), ("\\ ", " "), ("\\-", "-"), ("\\(dq", "\""), ("\\e", "\\"),
        ] {
            text = text.replacingOccurrences(of: escape, with: character)
        }
        return text
    }

    /// The lines of a section, from its `.SH` to the next.
    static func section(_ name: String) -> [String] {
        let lines = page.split(separator: "\n").map(String.init)
        guard let start = lines.firstIndex(of: ".SH \(name)") else { return [] }
        let rest = lines[(start + 1)...]
        return Array(rest.prefix { !$0.hasPrefix(".SH ") })
    }

    @Test("has the sections of a manual page, in order")
    func sections() {
        let headings = Self.page.split(separator: "\n").filter { $0.hasPrefix(".SH ") }.map { String($0.dropFirst(4)) }
        #expect(
            headings == [
                "NAME", "SYNOPSIS", "DESCRIPTION", "COMMANDS", "GLOBAL OPTIONS", "EXIT STATUS", "FILES", "ENVIRONMENT", "EXAMPLES", "SEE ALSO",
            ])
        #expect(Self.page.hasPrefix(".\\\""))
    }

    @Test("the title line carries the version's date and the version")
    func titleLine() throws {
        let title = try #require(Self.page.split(separator: "\n").first { $0.hasPrefix(".TH ") })
        #expect(
            title
                == ".TH GITBAY\\-SYNC 1 \"\(HelpText.versionDate.replacingOccurrences(of: "-", with: "\\-"))\" \"gitbay\\-sync \(HelpText.version)\" \"User Commands\""
        )
        // A date as man pages give it: 2026-12-01.
        let parts = HelpText.versionDate.split(separator: "-")
        #expect(parts.count == 3 && parts.map(\.count) == [4, 2, 2] && parts.allSatisfy { $0.allSatisfy(\.isNumber) }, "\(HelpText.versionDate)")
    }

    @Test("lists the commands by group, each under its group's heading, in the help's order")
    func groups() {
        let lines = Self.section("COMMANDS")
        let headings = lines.filter { $0.hasPrefix(".SS ") }
        #expect(headings == CommandGroup.allCases.map { ".SS \"\($0.title)\"" })
        for spec in CommandRegistry.specs {
            let usage = lines.firstIndex(of: ManPage.usage(spec))
            let heading = lines.firstIndex(of: ".SS \"\(spec.group.title)\"")
            let next = CommandGroup.allCases.drop { $0 != spec.group }.dropFirst().first.flatMap { lines.firstIndex(of: ".SS \"\($0.title)\"") }
            #expect(usage != nil && heading != nil && usage! > heading! && usage! < (next ?? lines.count), "\(spec.name)")
        }
    }

    @Test("gives every command's examples in EXAMPLES, by group, each with what it does")
    func examples() {
        let lines = Self.section("EXAMPLES").map(Self.plain)
        #expect(lines.filter { $0.hasPrefix(".SS ") } == CommandGroup.allCases.map { ".SS \"\($0.title)\"" })
        // Each example's comment and command, their lines put back together as a reader would.
        var blocks: [(comment: String, command: String)] = []
        for (index, line) in lines.enumerated() where line == ".nf" {
            let block = lines[(index + 1)...].prefix { $0 != ".fi" }
            let comment = block.prefix { $0.hasPrefix("# ") }.map { $0.dropFirst(2) }.joined(separator: " ")
            let command = block.drop { $0.hasPrefix("# ") }.map { $0.trimmingCharacters(in: .whitespaces) }
                .map { $0.hasSuffix(" \\") ? String($0.dropLast(2)) : $0 }.joined(separator: " ")
            blocks.append((comment, command))
        }
        for spec in CommandRegistry.specs {
            #expect(!spec.examples.isEmpty, "\(spec.name)")
            for example in spec.examples {
                #expect(blocks.contains { $0.comment == example.comment.filter { $0 != "`" } && $0.command == example.line }, "\(example.line)")
            }
        }
    }

    @Test("gives every command its usage line, each alias's, its summary and its arguments")
    func commands() {
        let commands = Self.plain(Self.section("COMMANDS").joined(separator: "\n"))
        for spec in CommandRegistry.specs {
            #expect(commands.contains(spec.usage), "\(spec.name)")
            for alias in spec.aliases { #expect(commands.contains(spec.usage(as: alias)), "\(alias)") }
            #expect(commands.contains(spec.summary.filter { $0 != "`" }), "\(spec.name)")
            for argument in spec.arguments {
                #expect(commands.contains("<\(argument.name)>"), "\(spec.name) <\(argument.name)>")
                #expect(commands.contains(argument.help.filter { $0 != "`" }), "\(spec.name) <\(argument.name)>")
            }
        }
    }

    @Test("lists every option of every command, with its value and help")
    func options() {
        let commands = Self.plain(Self.section("COMMANDS").joined(separator: "\n"))
        for spec in CommandRegistry.specs {
            for option in spec.options {
                let label = option.valueName.map { "\(option.name) \($0)" } ?? option.name
                #expect(commands.contains(".TP\n\(label)\n\(option.help.filter { $0 != "`" })"), "\(spec.name) \(option.name)")
            }
        }
    }

    @Test("lists every global option")
    func globalOptions() {
        let global = Self.plain(Self.section("GLOBAL OPTIONS").joined(separator: "\n"))
        for option in GlobalOptions.specs {
            let label = option.valueName.map { "\(option.name) \($0)" } ?? option.name
            #expect(global.contains(".TP\n\(label)\n\(option.help.filter { $0 != "`" })"), "\(option.name)")
        }
        #expect(global.components(separatedBy: ".TP").count - 1 == GlobalOptions.specs.count)
    }

    @Test("names every exit code, the same as the table in docs/reference.md")
    func exitCodes() throws {
        let status = Self.section("EXIT STATUS")
        let codes = status.filter { $0.hasPrefix("\\fB") }.map { $0.dropFirst(3).dropLast(3) }.compactMap { Int32($0) }
        #expect(codes == ExitCode.allCases.map(\.rawValue))
        let reference = try String(contentsOfFile: Self.root + "/docs/reference.md", encoding: .utf8)
        let table = try #require(reference.components(separatedBy: "\n## Exit codes").dropFirst().first)
            .components(separatedBy: "\n\n")[1]
        let documented = table.split(separator: "\n").compactMap { line in
            Int32(line.split(separator: "|").first?.trimmingCharacters(in: .whitespaces) ?? "")
        }
        #expect(documented == ExitCode.allCases.map(\.rawValue))
    }

    @Test("--help names every exit code too")
    func helpExitCodes() {
        let named = HelpText.exitCodes.dropFirst("Exit codes: ".count).split(separator: ", ").compactMap { Int32($0.prefix { $0.isNumber }) }
        #expect(named == ExitCode.allCases.map(\.rawValue))
    }

    @Test("escapes what roff would act on")
    func escaping() {
        let spec = CommandSpec(
            words: ["odd-one"], group: .accounts, arguments: [], options: [.init(name: "--x-y", valueName: "V", help: "'quoted\\path ±")],
            summary: ".starts with a dot", discussion: "first line\n'second line\n\n  .example `code`"
        )
        let lines = ManPage.render(commands: [spec], globalOptions: [], version: "9", date: "2000-01-01").split(separator: "\n").map(String.init)
        #expect(lines.contains("\\&.starts with a dot"))
        #expect(lines.contains("first line 'second line"))
        #expect(lines.contains("\\&.example \\fBcode\\fR"))
        #expect(lines.contains("\\&'quoted\\epath \\[u00B1]"))
        #expect(lines.contains("\\fB\\-\\-x\\-y\\fR \\fIV\\fR"))
        #expect(lines.contains("\\fBgitbay\\-sync odd\\-one\\fR \\%[\\fB\\-\\-x\\-y\\fR\\ \\%\\fIV\\fR]"))
        // No text line but the comment starts with a request character unless it is one.
        let requests: Set<String> = [".TH", ".SH", ".SS", ".PP", ".TP", ".nf", ".fi", ".RS", ".RE", ".BR", ".in", ".ti", ".br", ".ad", ".\\\""]
        for line in lines where line.hasPrefix(".") || line.hasPrefix("'") {
            #expect(requests.contains(String(line.prefix { $0 != " " })), "\(line)")
        }
    }

    @Test(
        "fits an 80-column terminal: usages wrap, and examples break as shell lines",
        .enabled(
            if: FileManager.default.isExecutableFile(atPath: "/usr/bin/groff") || ProcessInfo.processInfo.environment["CI"] == "true",
            "groff is not installed")
    )
    func fitsEightyColumns() async throws {
        let folder = try TemporaryDirectory()
        let file = folder.file("gitbay-sync.1")
        try Self.page.write(toFile: file, atomically: true, encoding: .utf8)
        let groff = try BuiltBinary(executable: "/usr/bin/groff", environment: ["PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"], folder: folder)
        // What `man` sets on an 80-column terminal: lines of 80 columns at most.
        let result = try await groff.run(["-man", "-Tutf8", "-rLL=80n", "-P-cbou", file])
        #expect(result.code == 0, "\(result.err)")
        let lines = result.out.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count > 500, "the whole page was set")
        let wide = lines.filter { $0.count > 80 }
        #expect(wide.isEmpty, "\(wide.joined(separator: "\n"))")
    }

    @Test(
        "is accepted by groff without a warning",
        .enabled(
            if: FileManager.default.isExecutableFile(atPath: "/usr/bin/groff") || ProcessInfo.processInfo.environment["CI"] == "true",
            "groff is not installed (scripts/install-deps installs it)"))
    func groffAcceptsIt() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: "/usr/bin/groff"), "groff is not installed: scripts/install-deps installs it")
        let folder = try TemporaryDirectory()
        let file = folder.file("gitbay-sync.1")
        try Self.page.write(toFile: file, atomically: true, encoding: .utf8)
        let groff = try BuiltBinary(executable: "/usr/bin/groff", environment: ["PATH": "/usr/bin:/bin"], folder: folder)
        let result = try await groff.run(["-man", "-ww", "-z", file])
        #expect(result.code == 0)
        #expect(result.err == "")
    }

    /// The package's folder.
    static var root: String {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<4 { url.deleteLastPathComponent() }
        return url.path
    }
}
