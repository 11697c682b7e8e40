import Foundation
import TestSupport
import Testing

@testable import GitbaySync

/// The zsh and fish scripts at work, where those shells are installed (found on PATH): fish
/// answers `complete -C`; zsh runs the function with its completion builtins replaced by
/// ones that print what they were given.
@Suite("Zsh and fish completion at work")
struct ZshFishCompletionTests {
    /// Whether a test of `shell` runs: where it is installed, and always under CI, where a
    /// missing shell fails the test rather than skipping it.
    static func runs(_ shell: String) -> Bool {
        installed(shell) != nil || ProcessInfo.processInfo.environment["CI"] == "true"
    }

    /// The shell's path, or a failure naming the fix.
    static func required(_ shell: String) throws -> String {
        try #require(installed(shell), "\(shell) is not installed: scripts/install-deps installs it")
    }

    /// An executable of that name on this process's PATH.
    static func installed(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Each driver prints, for each line typed, the words offered; both run in their HOME (the
    /// test's folder), so that a name a broken script ran writes nowhere else.
    static let zshDriver = #"""
        _describe() { local -a items; items=("${(@P)${@[-1]}}"); print -rl -- "${(@)items%%:*}"; }
        compadd() { if [[ $1 == -a ]]; then print -rl -- "${(@P)2}"; else shift; print -rl -- "$@"; fi; }
        _files() { print -r -- files; }
        _message() { print -r -- message; }
        source "$1" > /dev/null
        cd "$HOME" || exit 1
        while IFS= read -r line; do
            words=(${(z)line}); [[ $line == *' ' ]] && words+=('')
            CURRENT=${#words}; PREFIX=${words[CURRENT]}
            print -r -- "[$(_gitbay-sync | tr '\n' '\037')]"
        done
        """#

    static let fishDriver = #"""
        source $argv[1]
        cd $HOME; or exit 1
        while read -l line
            set -l offered (complete -C "$line" | string replace -r '\t.*' '' | string join \x1f)
            echo "[$offered]"
        end
        """#

    /// The words offered for each line, by the shell at `path` running `driver`, with
    /// `standIn` as `gitbay-sync` (`BashCompletionTests.Completer`'s).
    static func complete(
        _ shell: Shell, at path: String, driver: String, lines: [String], standIn: String = BashCompletionTests.standIn
    ) async throws -> [Set<String>] {
        let completer = try BashCompletionTests.Completer(standIn: standIn)
        let folder = completer.folder
        try Completions.render(shell: shell, commands: CommandRegistry.specs, globalOptions: GlobalOptions.specs)
            .write(toFile: folder.file("completion"), atomically: true, encoding: .utf8)
        try driver.write(toFile: folder.file("driver"), atomically: true, encoding: .utf8)
        var environment = ["PATH": folder.file("bin") + ":/usr/bin:/bin", "HOME": folder.path]
        environment["LD_LIBRARY_PATH"] = ProcessInfo.processInfo.environment["LD_LIBRARY_PATH"]
        let process = try BuiltBinary(executable: path, environment: environment, folder: folder)
        let arguments =
            shell == .zsh
            ? ["-f", folder.file("driver"), folder.file("completion")] : ["--no-config", folder.file("driver"), folder.file("completion")]
        let result = try await process.run(arguments, stdin: lines.joined(separator: "\n") + "\n")
        #expect(result.code == 0, "\(result.err)")
        // One line in brackets per line typed, its words apart by U+001F (which JSON escapes, so no account name holds it).
        let answers = result.out.split(separator: "\n").map { Set($0.dropFirst().dropLast().split(separator: "\u{1F}").map(String.init)) }
        try #require(answers.count == lines.count, "\(result.out)")
        return answers
    }

    static let lines = [
        "gitbay-sync ", "gitbay-sync help service ", "gitbay-sync devices ", "gitbay-sync device set-token --", "gitbay-sync run --",
        "gitbay-sync logout ", "gitbay-sync completions ", "gitbay-sync pause alice@127.0.0.1:8080 ", "gitbay-sync devices rm ",
        "gitbay-sync devices rm --", "gitbay-sync login https://gitbay.org --token-store ",
    ]

    /// What each of `lines` should offer.
    static let expected: [Set<String>] = [
        Set(CommandRegistry.specs.flatMap { [$0.words] + $0.aliasWords }.map { $0[0] } + ["help"]), ["install", "uninstall", "show"],
        ["remove", "rm", "alice@127.0.0.1:8080", "bob@gitbay.org"], Set(GlobalOptions.specs.map(\.name) + ["--label"]),
        Set(GlobalOptions.specs.map(\.name) + (CommandRegistry.specs.first { $0.name == "run" }?.options.map(\.name) ?? [])),
        ["alice@127.0.0.1:8080", "bob@gitbay.org"], ["bash", "zsh", "fish"], [], ["alice@127.0.0.1:8080", "bob@gitbay.org"],
        Set(GlobalOptions.specs.map(\.name) + ["--yes"]), ["keyring", "database"],
    ]

    @Test("zsh offers the commands, options and accounts", .enabled(if: runs("zsh"), "zsh is not installed (scripts/install-deps installs it)"))
    func zsh() async throws {
        let path = try Self.required("zsh")
        let answers = try await Self.complete(.zsh, at: path, driver: Self.zshDriver, lines: Self.lines)
        for (index, answer) in answers.enumerated() {
            // zsh also offers the short forms among the options.
            #expect(answer.subtracting(["-h", "-v"]) == Self.expected[index], "\(Self.lines[index])")
        }
    }

    @Test("fish offers the commands, options and accounts", .enabled(if: runs("fish"), "fish is not installed (scripts/install-deps installs it)"))
    func fish() async throws {
        let path = try Self.required("fish")
        let answers = try await Self.complete(.fish, at: path, driver: Self.fishDriver, lines: Self.lines)
        for (index, answer) in answers.enumerated() {
            #expect(answer == Self.expected[index], "\(Self.lines[index])")
        }
    }
}
