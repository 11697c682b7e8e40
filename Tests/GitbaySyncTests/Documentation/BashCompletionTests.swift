import Foundation
import TestSupport
import Testing

@testable import GitbaySync

/// The bash script run the way bash runs it on Tab, with a stand-in `gitbay-sync` on PATH that
/// lists two accounts and records how it was called.
@Suite("Bash completion at work")
struct BashCompletionTests {
    /// Reads command lines on stdin and prints, for each, the words the script offers, in brackets and apart
    /// by U+001F (which JSON escapes, so no account name holds it). A line
    /// holding a tab gives after it the word bash would complete (what follows its last `:`). It runs in
    /// its HOME (the test's folder), so that a name a broken script ran writes nowhere else.
    static let driver = #"""
        source "$1"
        cd "$HOME" || exit 1
        while IFS= read -r query; do
            line="${query%%$'\t'*}"
            COMP_LINE="$line"
            COMP_POINT=${#line}
            read -r -a COMP_WORDS <<< "$line"
            [[ $line == *' ' ]] && COMP_WORDS+=("")
            [[ $query == *$'\t'* ]] && COMP_WORDS[${#COMP_WORDS[@]}-1]="${query#*$'\t'}"
            COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
            COMPREPLY=()
            _gitbay_sync
            (IFS=$'\037'; printf '[%s]\n' "${COMPREPLY[*]}")
        done
        """#

    static let standIn = """
        #!/bin/sh
        printf '%s\\n' "$*" >> "$(dirname "$0")/calls"
        echo '{"accounts":[{"account":"alice@127.0.0.1:8080","instance":"http://127.0.0.1:8080"},{"account": "bob@gitbay.org"}]}'
        """

    struct Completer {
        let folder: TemporaryDirectory

        /// `standIn` is the stand-in `gitbay-sync`; `{folder}` in it becomes the folder's path.
        init(standIn: String = BashCompletionTests.standIn) throws {
            folder = try TemporaryDirectory()
            let script = Completions.render(shell: .bash, commands: CommandRegistry.specs, globalOptions: GlobalOptions.specs)
            try script.write(toFile: folder.file("completion.bash"), atomically: true, encoding: .utf8)
            try BashCompletionTests.driver.write(toFile: folder.file("driver.bash"), atomically: true, encoding: .utf8)
            try FileManager.default.createDirectory(atPath: folder.file("bin"), withIntermediateDirectories: true)
            try standIn.replacingOccurrences(of: "{folder}", with: folder.path)
                .write(toFile: folder.file("bin/gitbay-sync"), atomically: true, encoding: .utf8)
            try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: folder.file("bin/gitbay-sync"))
        }

        /// The words offered for each line, in order.
        func complete(_ lines: [String]) async throws -> [[String]] {
            let bash = try BuiltBinary(
                executable: "/bin/bash", environment: ["PATH": folder.file("bin") + ":/usr/bin:/bin", "HOME": folder.path], folder: folder
            )
            let result = try await bash.run(
                [folder.file("driver.bash"), folder.file("completion.bash")], stdin: lines.joined(separator: "\n") + "\n")
            #expect(result.code == 0)
            #expect(result.err == "")
            // Each answer is one line in brackets, so that an empty one is seen too.
            let answers = result.out.split(separator: "\n").map { $0.dropFirst().dropLast().split(separator: "\u{1F}").map(String.init) }
            try #require(answers.count == lines.count, "\(result.out)")
            return answers
        }

        var calls: [String] {
            (try? String(contentsOfFile: folder.file("bin/calls"), encoding: .utf8))?.split(separator: "\n").map(String.init) ?? []
        }
    }

    static var globalWords: Set<String> { Set(GlobalOptions.specs.map(\.name) + ["-h", "-v"]) }

    @Test("offers the first words, then the second words of each group")
    func commandWords() async throws {
        let completer = try Completer()
        let groups = Array(Set(CommandRegistry.specs.filter { $0.words.count == 2 }.map { $0.words[0] })).sorted()
        let answers = try await completer.complete(["gitbay-sync ", "gitbay-sync help "] + groups.map { "gitbay-sync \($0) " })
        let firstWords = Set(CommandRegistry.specs.flatMap { [$0.words] + $0.aliasWords }.map { $0[0] } + ["help"])
        #expect(Set(answers[0]) == firstWords)
        #expect(Set(answers[1]) == firstWords)
        for (group, answer) in zip(groups, answers.dropFirst(2)) {
            let seconds = Set(
                CommandRegistry.specs.flatMap { [$0.words] + $0.aliasWords }.filter { $0.count == 2 && $0[0] == group }.map { $0[1] })
            #expect(seconds.isSubset(of: Set(answer)), "\(group): \(answer)")
        }
    }

    @Test("offers each command's options and the global ones, and nothing else")
    func options() async throws {
        let completer = try Completer()
        let specs = CommandRegistry.specs + CommandRegistry.specs.flatMap { spec in spec.aliases.map { spec.named($0) } }
        let answers = try await completer.complete(specs.map { "gitbay-sync \($0.name) -" } + ["gitbay-sync -"])
        for (spec, answer) in zip(specs, answers) {
            #expect(Set(answer) == Self.globalWords.union(spec.options.map(\.name)), "\(spec.name)")
        }
        #expect(Set(answers.last ?? []) == Self.globalWords)
    }

    @Test("offers the words an option's value can be: --token-store keyring or database")
    func optionValueWords() async throws {
        let completer = try Completer()
        let answers = try await completer.complete([
            "gitbay-sync login https://gitbay.org --token-store ", "gitbay-sync login --token-store k", "gitbay-sync login --label ",
        ])
        #expect(answers[0] == ["keyring", "database"])
        #expect(answers[1] == ["keyring"])
        #expect(answers[2] == [], "a free value is not guessed")
    }

    @Test("offers the signed-in accounts, passing on --db, and completes after a colon")
    func accounts() async throws {
        let completer = try Completer()
        let answers = try await completer.complete([
            "gitbay-sync pause ", "gitbay-sync --db /tmp/x.db push on b", "gitbay-sync logout alice@127.0.0.1:\t:",
            "gitbay-sync completions ", "gitbay-sync pause alice@127.0.0.1:8080 ", "gitbay-sync pause alice@127.0.0.1:80\t80",
        ])
        #expect(answers[0] == ["alice@127.0.0.1:8080", "bob@gitbay.org"])
        #expect(answers[1] == ["bob@gitbay.org"])
        // Readline replaces only what follows the colon: the candidate is what goes there.
        #expect(answers[2] == ["8080"])
        #expect(answers[3] == ["bash", "zsh", "fish"])
        #expect(answers[4] == [])
        #expect(answers[5] == ["8080"])
        #expect(completer.calls == ["accounts --json", "--db /tmp/x.db accounts --json", "accounts --json", "accounts --json"])
    }

    @Test("completes files after --db and nothing after an option's value placeholder")
    func optionValues() async throws {
        let completer = try Completer()
        try "".write(toFile: completer.folder.file("state.db"), atomically: true, encoding: .utf8)
        let answers = try await completer.complete([
            "gitbay-sync --db \(completer.folder.path)/sta", "gitbay-sync run --every ", "gitbay-sync run --every 1h -",
        ])
        #expect(answers[0] == ["\(completer.folder.path)/state.db"])
        #expect(answers[1] == [])
        #expect(Set(answers[2]).contains("--concurrency"))
    }
}
