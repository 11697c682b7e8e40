import Foundation
import TestSupport
import Testing

@testable import GitbaySync

@Suite("Shell completions")
struct CompletionsTests {
    static func script(_ shell: Shell) -> String {
        Completions.render(shell: shell, commands: CommandRegistry.specs, globalOptions: GlobalOptions.specs)
    }

    static func lines(_ shell: Shell) -> [String] { script(shell).split(separator: "\n").map(String.init) }

    /// The first words a user can type: every command's, every alias, and `help`.
    static var firstWords: [String] {
        var words: [String] = []
        for word in CommandRegistry.specs.flatMap({ [$0.words] + $0.aliasWords }).map({ $0[0] }) + ["help"] where !words.contains(word) {
            words.append(word)
        }
        return words
    }

    @Test("offers every first word, alias and second word, in each shell", arguments: Shell.allCases)
    func commandWords(shell: Shell) {
        let lines = Self.lines(shell)
        let script = Self.script(shell)
        for word in Self.firstWords {
            let offered =
                switch shell {
                case .bash: lines.contains { $0.contains("reply=(login ") && Self.words($0).contains(word) }
                case .zsh: lines.contains { $0.contains("_describe -t") && $0.hasPrefix("        described=('") && $0.contains("'\(word):") }
                case .fish: script.contains("-n __gitbay_sync_needs_command -a '\(word)' -d ")
                }
            #expect(offered, "\(shell): \(word)")
        }
        for spec in CommandRegistry.specs {
            // Each script resolves the command's words to the command.
            #expect(script.contains("'\(spec.name)'"), "\(shell): \(spec.name)")
        }
        for words in CommandRegistry.specs.flatMap({ [$0.words] + $0.aliasWords }) where words.count == 2 {
            let (first, second) = (words[0], words[1])
            let offered =
                switch shell {
                case .bash: lines.contains { $0.hasPrefix("        '\(first)') reply+=(") && Self.words($0).contains(second) }
                case .zsh: lines.contains { $0.hasPrefix("        '\(first)') described=(") && $0.contains("'\(second):") }
                case .fish: script.contains("-n '__gitbay_sync_needs_subcommand \(first)' -a '\(second)' -d ")
                }
            #expect(offered, "\(shell): \(words)")
        }
    }

    @Test("zsh offers the first words in the help's groups, each under its group's name")
    func zshGroups() {
        let lines = Self.lines(.zsh).filter { $0.contains("_describe -t") && $0.hasPrefix("        described=(") }
        #expect(lines.count == CommandGroup.allCases.count)
        for (group, line) in zip(CommandGroup.allCases, lines) {
            #expect(line.hasSuffix("; _describe -t '\(group.tag)-commands' \(ShellQuote.posix(group.title)) described"), "\(line)")
            let words = CommandRegistry.specs.filter { $0.group == group }.flatMap { [$0.words] + $0.aliasWords }.map { $0[0] }
            for word in words { #expect(line.contains("'\(word):"), "\(group): \(word)") }
        }
    }

    @Test("offers every command's options and every global option, in each shell", arguments: Shell.allCases)
    func options(shell: Shell) {
        let lines = Self.lines(shell)
        for spec in CommandRegistry.specs {
            for option in spec.options {
                let offered =
                    switch shell {
                    case .bash: lines.contains { $0.contains("'\(spec.name)') reply+=(") && Self.words($0).contains(option.name) }
                    case .zsh: lines.contains { $0.contains("'\(spec.name)') described+=(") && $0.contains("'\(option.name):") }
                    case .fish:
                        lines.contains { $0.contains("__gitbay_sync_command_is \"\(spec.name)\"") && $0.contains(" -l \(option.name.dropFirst(2)) ") }
                    }
                #expect(offered, "\(shell): \(spec.name) \(option.name)")
            }
        }
        for option in GlobalOptions.specs {
            let offered =
                switch shell {
                case .bash: lines.contains { $0.contains("reply=(--") && Self.words($0).contains(option.name) }
                case .zsh: lines.contains { $0.contains("described=('--") && $0.contains("'\(option.name):") }
                case .fish: lines.contains { $0.hasPrefix("complete -c gitbay-sync -l \(option.name.dropFirst(2)) ") }
                }
            #expect(offered, "\(shell): \(option.name)")
        }
    }

    @Test("offers the signed-in accounts for every account argument, in each shell", arguments: Shell.allCases)
    func accountArguments(shell: Shell) {
        let script = Self.script(shell)
        for spec in CommandRegistry.specs {
            for (index, argument) in spec.arguments.enumerated() where argument.name == "account" {
                let offered =
                    switch shell {
                    case .bash:
                        script.contains("'\(spec.name) \(index)') while IFS= read -r word; do reply+=(\"$word\"); done < <(_gitbay_sync_accounts")
                    case .zsh: script.contains("'\(spec.name) \(index)') _gitbay_sync_accounts")
                    case .fish: script.contains("-n '__gitbay_sync_argument_is \"\(spec.name)\" \(index)' -a '(__gitbay_sync_accounts)'")
                    }
                #expect(offered, "\(shell): \(spec.name)")
            }
        }
        #expect(script.contains("gitbay-sync") && script.contains("accounts --json 2>/dev/null"))
    }

    @Test("each script is valid in its shell (zsh and fish: scripts/install-deps installs them)", arguments: Shell.allCases)
    func syntax(shell: Shell) async throws {
        let check: (path: String, arguments: [String]) =
            switch shell {
            case .bash: ("/bin/bash", ["-n"])
            case .zsh: (try ZshFishCompletionTests.required("zsh"), ["-n"])
            case .fish: (try ZshFishCompletionTests.required("fish"), ["--no-execute"])
            }
        let path = check.path
        let folder = try TemporaryDirectory()
        let file = folder.file("completion")
        try Self.script(shell).write(toFile: file, atomically: true, encoding: .utf8)
        var environment = ["PATH": "/usr/bin:/bin"]
        environment["LD_LIBRARY_PATH"] = ProcessInfo.processInfo.environment["LD_LIBRARY_PATH"]
        let process = try BuiltBinary(executable: path, environment: environment, folder: folder)
        let result = try await process.run(check.arguments + [file])
        #expect(result.code == 0, "\(result.err)")
        #expect(result.err == "")
    }

    @Test("an unknown shell is a usage error naming the shells")
    func unknownShell() {
        #expect(throws: UsageError("unknown shell 'tcsh'; one of: bash, zsh, fish", command: ["completions"])) {
            try Shell.named("tcsh")
        }
        #expect(Shell.allCases.allSatisfy { (try? Shell.named($0.rawValue)) == $0 })
    }

    static func words(_ line: String) -> [String] {
        line.split { " ()|;".contains($0) }.map(String.init)
    }
}
