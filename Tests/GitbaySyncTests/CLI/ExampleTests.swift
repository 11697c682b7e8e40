import Foundation
import TestSupport
import Testing

@testable import GitbaySync

@Suite("The examples in the help")
struct ExampleTests {
    static var examples: [CommandSpec.Example] { CommandRegistry.specs.flatMap(\.examples) }

    @Test("every command has examples, and the parser reads each as that command", arguments: CommandRegistry.specs.map(\.name))
    func parsed(_ name: String) throws {
        let command = try #require(CommandRegistry.all.first { $0.spec.name == name })
        #expect(!command.spec.examples.isEmpty, "\(name) has no example")
        for example in command.spec.examples {
            do {
                let invocation = try CommandLineParser.parse(example.arguments)
                guard case .command(let parsed) = invocation.request else {
                    Issue.record("\(example.line) is not a command but \(invocation.request)")
                    continue
                }
                #expect(ObjectIdentifier(type(of: parsed)) == ObjectIdentifier(command), "\(example.line) is another command")
            } catch {
                Issue.record("\(example.line) does not parse: \(error.message)")
            }
        }
    }

    @Test("every example is a shell line, and a shell reads its arguments back as they are")
    func shellLines() async throws {
        let folder = try TemporaryDirectory()
        // `sh -n` reads every line, each as it is shown at 80 and at 40 columns, and runs none.
        let shown = [80, 40].flatMap { width in
            Self.examples.map { TextLayout.shellLine($0.line, width: width, indent: "").joined(separator: "\n") }
        }
        try shown.joined(separator: "\n").write(toFile: folder.file("lines.sh"), atomically: true, encoding: .utf8)
        let sh = try BuiltBinary(executable: "/bin/sh", environment: ["PATH": "/usr/bin:/bin"], folder: folder)
        let syntax = try await sh.run(["-n", folder.file("lines.sh")])
        #expect(syntax.code == 0 && syntax.err.isEmpty, "\(syntax.err)")
        // Each example's arguments as the line quotes them, read back by the shell one per line.
        let script =
            #"show() { printf '%s' "$#"; for word in "$@"; do printf ' [%s]' "$word"; done; printf '\n'; }"# + "\n"
            + Self.examples.map { "show " + $0.arguments.map(CommandSpec.Example.quoted).joined(separator: " ") }.joined(separator: "\n")
        let read = try await sh.run(["-c", script])
        #expect(read.code == 0, "\(read.err)")
        let expected = Self.examples.map { example in "\(example.arguments.count)" + example.arguments.map { " [\($0)]" }.joined() }
        #expect(read.out.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) == expected)
    }

    @Test("a word a shell would read otherwise is quoted")
    func quoting() {
        #expect(CommandSpec.Example.quoted("alice@127.0.0.1:3000") == "alice@127.0.0.1:3000")
        #expect(CommandSpec.Example.quoted("my laptop") == "'my laptop'")
        #expect(CommandSpec.Example.quoted("it's") == #"'it'\''s'"#)
        #expect(CommandSpec.Example.quoted("$HOME") == "'$HOME'")
        #expect(CommandSpec.Example.quoted("") == "''")
        let line = CommandSpec.Example("x", ["device", "set-token", "--label", "my laptop"], before: "printf %s \"$T\" |", after: "< file").line
        #expect(line == "printf %s \"$T\" | gitbay-sync device set-token --label 'my laptop' < file")
    }

    @Test("a command's help ends with its examples, each comment then its line", arguments: CommandRegistry.specs.map(\.name))
    func inHelp(_ name: String) throws {
        let spec = try #require(CommandRegistry.specs.first { $0.name == name })
        let help = HelpText.command(spec, width: 10_000)
        let block = try #require(help.components(separatedBy: "\nExamples:\n").last)
        let expected = spec.examples.map { "  # \($0.comment)\n  \($0.line)" }.joined(separator: "\n\n")
        #expect(block == expected)
    }
}
