import GitbayFake
import TestSupport
import Testing

/// How the SSH front reads `$SSH_ORIGINAL_COMMAND` back into argv: shell word splitting and
/// quoting, nothing else a shell does.
@Suite("SSH command line")
struct SSHCommandLineTests {
    struct SplitCase: Sendable, CustomTestStringConvertible {
        let line: String
        let argv: [String]
        var testDescription: String { line }
    }

    static let splitCases: [SplitCase] = [
        SplitCase(line: "token create --name x --json", argv: ["token", "create", "--name", "x", "--json"]),
        SplitCase(line: "  whoami \t\n --json  ", argv: ["whoami", "--json"]),
        SplitCase(line: "", argv: []),
        SplitCase(line: "token create --name 'my laptop'", argv: ["token", "create", "--name", "my laptop"]),
        SplitCase(line: #"a "b c" d"#, argv: ["a", "b c", "d"]),
        SplitCase(line: #"'it'\''s'"#, argv: ["it's"]),
        SplitCase(line: #""say \"hi\" \\ \n""#, argv: [#"say "hi" \ \n"#]),
        SplitCase(line: #"a\ b"#, argv: ["a b"]),
        SplitCase(line: "'' \"\"", argv: ["", ""]),
        SplitCase(line: "x'y'\"z\"", argv: ["xyz"]),
        SplitCase(line: "$HOME $(id) `id` * ; | > #", argv: ["$HOME", "$(id)", "`id`", "*", ";", "|", ">", "#"]),
    ]

    @Test("splits as a shell splits words, with no expansion", arguments: splitCases)
    func split(_ example: SplitCase) throws {
        #expect(try SSHCommandLine.split(example.line) == example.argv)
    }

    @Test("an unclosed quote or a final backslash is an error")
    func malformed() {
        #expect(throws: SSHCommandLine.SplitError.unclosedQuote("'")) { try SSHCommandLine.split("token create --name 'x") }
        #expect(throws: SSHCommandLine.SplitError.unclosedQuote("\"")) { try SSHCommandLine.split("a \"b") }
        #expect(throws: SSHCommandLine.SplitError.trailingBackslash) { try SSHCommandLine.split("a \\") }
    }

    @Test("quoted argv reads back word for word, whatever the words hold")
    func roundTrip() throws {
        var random = SplitMix64(seed: 24)
        let alphabet = Array("ab '\"\\$`*;|&<>#~(){}[] \t\n=é-") + ["\u{1F600}"]
        for _ in 0..<500 {
            let argv = (0..<Int(random.next() % 5)).map { _ in
                String((0..<Int(random.next() % 8)).map { _ in alphabet[Int(random.next() % UInt64(alphabet.count))] })
            }
            #expect(try SSHCommandLine.split(SSHCommandLine.quoted(argv)) == argv)
        }
        #expect(SSHCommandLine.quoted(["token", "create", "--name", "gitbay-sync-laptop.local"]) == "token create --name gitbay-sync-laptop.local")
        #expect(SSHCommandLine.quoted("") == "''")
    }
}
