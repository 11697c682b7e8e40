import Foundation
import GitbayFake
import TestSupport
import Testing

@testable import GitbaySync

/// docs/reference.md against what it describes: its table of commands against the command
/// registry (every command, alias and option named, no row for a command that is gone), and
/// its `--json` examples against the keys of real output.
@Suite("docs/reference.md")
struct ReferenceTests {
    static var reference: String {
        get throws { try String(contentsOfFile: ManPageTests.root + "/docs/reference.md", encoding: .utf8) }
    }

    /// The rows of the commands table: its first column, and the whole row (a `\|` inside a
    /// cell read as a plain `|`).
    static func commandRows() throws -> [(commands: String, row: String)] {
        let lines: [Substring] = try reference.split(separator: "\n" as Character)
        return lines.compactMap { line -> (commands: String, row: String)? in
            guard line.hasPrefix("| `") else { return nil }
            let row = String(line).replacing("\\|", with: "\u{1}")
            let cells = row.split(separator: "|", omittingEmptySubsequences: false)
            guard cells.count > 2 else { return nil }
            return (String(cells[1]).replacing("\u{1}", with: "|"), row.replacing("\u{1}", with: "|"))
        }
    }

    /// The quoted usages of a first column.
    static func usages(_ commands: String) -> [Substring] {
        commands.split(separator: "`", omittingEmptySubsequences: false).enumerated().filter { $0.offset % 2 == 1 }.map(\.element)
    }

    /// The commands a quoted usage names: its words before the first placeholder or option,
    /// each `a|b` read as either.
    static func phrases(_ usage: Substring) -> [[String]] {
        let words = usage.split(separator: " ").prefix { !$0.hasPrefix("<") && !$0.hasPrefix("[") && !$0.hasPrefix("-") }
        return words.reduce([[]]) { phrases, word in
            phrases.flatMap { phrase in word.split(separator: "|").map { phrase + [String($0)] } }
        }
    }

    @Test("every command, its aliases and its options are in the table of commands")
    func everyCommand() throws {
        let rows = try Self.commandRows()
        for spec in CommandRegistry.specs {
            let row = rows.first { row in Self.usages(row.commands).contains { Self.phrases($0).contains { $0.starts(with: spec.words) } } }
            guard let row else {
                Issue.record("no row names `\(spec.name)`")
                continue
            }
            for option in spec.options {
                #expect(row.row.contains(option.name), "the row of `\(spec.name)` does not name \(option.name)")
            }
            for alias in spec.aliasWords.map({ $0.joined(separator: " ") }) {
                #expect(row.row.contains(alias), "the row of `\(spec.name)` does not name its alias \(alias)")
            }
        }
    }

    @Test("every command the table names is one the registry has")
    func noStaleRow() throws {
        let names = Set(CommandRegistry.specs.flatMap { [$0.name] + $0.aliasWords.map { $0.joined(separator: " ") } })
        for (commands, _) in try Self.commandRows() where !commands.contains("$") {
            for usage in Self.usages(commands) {
                for phrase in Self.phrases(usage) {
                    let known = (1...max(1, phrase.count)).contains { names.contains(phrase.prefix($0).joined(separator: " ")) }
                    #expect(known, "`\(usage)` names no command (\(phrase.joined(separator: " ")))")
                }
            }
        }
    }

    /// The first ```json block after the paragraph that starts with `heading`, parsed; `text`
    /// is the page (docs/reference.md when nil).
    static func example(after heading: String, in text: String? = nil) throws -> [String: Any] {
        let text = try text ?? reference
        let start = try #require(text.range(of: "\n" + heading))
        let open = try #require(text.range(of: "```json\n", range: start.upperBound..<text.endIndex))
        let close = try #require(text.range(of: "\n```", range: open.upperBound..<text.endIndex))
        let json = String(text[open.upperBound..<close.lowerBound])
        return try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
    }

    @Test("the keys of run --json and status --json, account by account, are the documented ones")
    func jsonKeys() async throws {
        let server = try FakeGitbayServer()
        defer { server.stop() }
        let cli = try CLIHarness()
        _ = try await cli.login(server, "alice")
        #expect(await cli.run(["device", "set-token"], stdin: RunOutcomeTests.token).code == 0)
        for (command, heading) in [(["run", "--json"], "`run --json`"), (["status", "--json"], "`status --json`")] {
            let real = try await cli.run(command).json()
            let documented = try Self.example(after: heading)
            #expect(Set(real.keys) == Set(documented.keys), "\(command): \(real.keys.sorted()) against \(documented.keys.sorted())")
            let realAccount = try #require((real["accounts"] as? [[String: Any]])?.first)
            let documentedAccount = try #require((documented["accounts"] as? [[String: Any]])?.first)
            #expect(
                Set(realAccount.keys) == Set(documentedAccount.keys),
                "\(command): \(realAccount.keys.sorted()) against \(documentedAccount.keys.sorted())")
        }
    }

    /// The keys of a shape written inline, as `{"account","accounts":[run objects],"ok"}`: the
    /// quoted names that open the object or follow a comma, never a value after a colon.
    static func inlineKeys(after phrase: String) throws -> Set<String> {
        let text = try reference.replacing("\n", with: " ")
        let start = try #require(text.range(of: phrase), "the reference names \(phrase)")
        let open = try #require(text.range(of: "`{", range: start.upperBound..<text.endIndex))
        let close = try #require(text.range(of: "}`", range: open.upperBound..<text.endIndex))
        let shape = String(text[open.lowerBound..<close.upperBound])
        return Set(shape.matches(of: /[{,]"([a-z_]+)"/).map { String($0.output.1) })
    }

    @Test("the inline --json shapes of the reference and of doctor's and status --history's examples have the keys of real output")
    func everyShape() async throws {
        let server = try FakeGitbayServer()
        defer { server.stop() }
        let cli = try CLIHarness()
        let alice = "alice@127.0.0.1:\(server.port)"
        let bob = try await cli.login(server, "bob")
        var checked: [String] = []
        func check(_ command: [String], stdin: String? = nil, phrase: String) async throws {
            let result = await cli.run(command + ["--json"], stdin: stdin)
            let real = try result.json()
            #expect(Set(real.keys) == (try Self.inlineKeys(after: phrase)), "\(command): \(real.keys.sorted())")
            checked.append(command.joined(separator: " "))
        }
        try await check(["login", server.baseURL], stdin: server.mintToken(for: "alice"), phrase: "`login --json` prints")
        try await check(["device", "set-token"], stdin: RunOutcomeTests.token, phrase: "`device set-token --json` prints")
        try await check(["device", "show"], phrase: "`device show --json` prints")
        try await check(["accounts"], phrase: "`accounts --json` prints")
        try await check(["pause", alice], phrase: "`pause --json` and `resume --json` print")
        try await check(["resume", alice], phrase: "`pause --json` and `resume --json` print")
        try await check(["prefer", bob], phrase: "`prefer --json` prints")
        try await check(["version"], phrase: "`version --json` prints")
        try await check(["remove-account", bob], phrase: "`remove-account --json` (and `logout --json`) prints")
        try await check(["device", "clear"], phrase: "and `device clear --json`")
        #expect(checked.count == 10)

        _ = await cli.run(["run"])
        let history = try await cli.run(["status", "--history", "--json"]).json()
        let documentedHistory = try Self.example(after: "`status --history --json`:")
        #expect(Set(history.keys) == Set(documentedHistory.keys))
        let run = try #require((history["runs"] as? [[String: Any]])?.first)
        let documentedRun = try #require((documentedHistory["runs"] as? [[String: Any]])?.first)
        #expect(Set(run.keys) == Set(documentedRun.keys), "\(run.keys.sorted()) against \(documentedRun.keys.sorted())")

        let unattended = try String(contentsOfFile: ManPageTests.root + "/docs/running-unattended.md", encoding: .utf8)
        let section = try #require(unattended.range(of: "\n## `doctor`"))
        let doctor = try await cli.run(["doctor", "--json"]).json()
        let documentedDoctor = try Self.example(after: "`--json`:", in: String(unattended[section.lowerBound...]))
        #expect(Set(doctor.keys) == Set(documentedDoctor.keys))
        let check = try #require((doctor["checks"] as? [[String: Any]])?.first)
        let documentedCheck = try #require((documentedDoctor["checks"] as? [[String: Any]])?.first)
        #expect(Set(check.keys) == Set(documentedCheck.keys), "\(check.keys.sorted()) against \(documentedCheck.keys.sorted())")
    }
}
