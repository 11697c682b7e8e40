import Foundation
import GitbayFake
import TestSupport
import Testing

@testable import GitbayAPI
@testable import GitbaySync

/// Random and hostile user names, from one seed (printed; `GITBAY_SYNC_FUZZ_SEED` replays
/// it), through everything a name meets: `UserName.isValid`, `login`'s refusal, the commands
/// printed for copying (and by `status`, `doctor`, `run` and `accounts`), and the bash, zsh
/// and fish completions, with real shells reading what is printed.
/// The property: a name that passes is plain data to a shell, and no name, passing or not,
/// is ever expanded or run.
@Suite("Fuzz: user names are data to every shell")
struct UserNameFuzzTests {
    /// What a hostile name is made of: shell syntax, expansions, options, terminal controls,
    /// and the pieces of a name gitbay gives. `CANARY` becomes a file a run command would create.
    static let fragments = [
        "$(touch CANARY)", "`touch CANARY`", "$(touch${IFS}CANARY)", "${x:=$(touch CANARY)}", "$((1+1))", "$HOME", "${IFS}", "$'\\x41'",
        ";", "&", "&&", "|", "<", ">", "'", "\"", "\\", " ", "\t", "\n", "*", "?", "[a]", "{a,b}", "~", "!", "#", "=", "-", "--", "-uX",
        "--app-name=x", ".", "_", "@", ":", "%", "+", ",", "/", "\u{1B}[2J", "\u{1B}]0;t\u{07}", "\u{202E}", "é", "\u{7F}", "\u{9B}",
        "alice", "bob", "a", "z", "0", "9", ".git", ".atom", "A",
    ]

    /// One name: hostile pieces joined, or characters of gitbay's own form, some of them
    /// too long, leading with a dot or a dash, or ending in `.git`.
    static func name(_ input: inout FuzzInput, canary: String) -> String {
        if input.chance(50) { return hostileName(&input, canary: canary) }
        let allowed = Array("abcdefghijklmnopqrstuvwxyz0123456789._-")
        var name = String((0..<input.int(1...70)).map { _ in input.pick(allowed) })
        if input.chance(20) { name = input.pick(["-", ".", "_"]) + name }
        if input.chance(10) { name += input.pick([".git", ".atom"]) }
        return name
    }

    /// One to six hostile pieces joined.
    static func hostileName(_ input: inout FuzzInput, canary: String) -> String {
        let pieces = (0..<input.int(1...6)).map { _ in input.pick(fragments) }
        return pieces.joined().replacing("CANARY", with: canary)
    }

    /// The names of one run, with the canary's path.
    static func names(count: Int, seed: UInt64, canary: String) -> [String] {
        var input = FuzzInput(seed: seed)
        return (0..<count).map { _ in name(&input, canary: canary) }
    }

    @Test("a name that passes has gitbay's form, starts with no dash and needs no quoting; every name printed reads back as itself")
    func namesAreData() async throws {
        let (_, count, seed) = FuzzInput.start("user names", default: 600)
        let folder = try TemporaryDirectory()
        let canary = folder.file("PWNED")
        let names = Self.names(count: count, seed: seed, canary: canary)
        var script = ""
        var expected = ""
        for name in names {
            if UserName.isValid(name) {
                #expect(
                    name.unicodeScalars.allSatisfy { "abcdefghijklmnopqrstuvwxyz0123456789._-".unicodeScalars.contains($0) }, "seed \(seed): \(name)")
                #expect(!name.hasPrefix("-") && !name.hasPrefix(".") && name.count <= UserName.maximumLength, "seed \(seed): \(name)")
                #expect(ShellWords.quoted(name) == name, "seed \(seed): a valid name needs no quoting: \(name)")
            }
            let account = "\(name)@127.0.0.1:8080"
            let printed = ShellWords.gitbaySync("remove-account", account, "--force")
            #expect(printed.hasPrefix("gitbay-sync "))
            // What a user pasting the command gives the program: the same words, one each.
            script += "set -- \(printed.dropFirst("gitbay-sync ".count)); printf '%s\\0' \"$#\" \"$@\"\n"
            expected += "3\0remove-account\0\(account)\0--force\0"
        }
        try script.write(toFile: folder.file("printed.sh"), atomically: true, encoding: .utf8)
        for shell in ["/bin/sh", "/bin/bash"] where FileManager.default.isExecutableFile(atPath: shell) {
            let run = try BuiltBinary(executable: shell, environment: ["PATH": "/usr/bin:/bin", "HOME": folder.path], folder: folder)
            let result = try await run.run([folder.file("printed.sh")])
            #expect(result.code == 0, "seed \(seed), \(shell): \(result.err)")
            #expect(result.out == expected, "seed \(seed), \(shell): a printed command read back otherwise")
        }
        #expect(!FileManager.default.fileExists(atPath: canary), "seed \(seed): a shell ran a name")
    }

    @Test("login accepts a name exactly when it passes, and stores nothing otherwise")
    func loginRefuses() async throws {
        let (_, count, seed) = FuzzInput.start("login user names", default: 24)
        let folder = try TemporaryDirectory()
        let names = Self.names(count: count, seed: seed, canary: folder.file("PWNED")) + ["alice", "a.b-c_d", "-uX"]
        let server = try FakeGitbayServer()
        defer { server.stop() }
        for name in names {
            let cli = try CLIHarness()
            let login = await cli.run(["login", server.baseURL], stdin: server.mintToken(for: name))
            if UserName.isValid(name) {
                #expect(login.code == 0, "seed \(seed): \(name): \(login.err)")
            } else {
                #expect(login.code == ExitCode.dataError.rawValue, "seed \(seed): \(name): \(login.err)")
                #expect(try await cli.store().accounts().isEmpty, "seed \(seed): \(name)")
            }
            #expect(OutsideTextTests.isInert(login.out + login.err), "seed \(seed): \(name)")
        }
        #expect(!FileManager.default.fileExists(atPath: folder.file("PWNED")))
    }

    /// A stand-in `gitbay-sync` whose `accounts --json` lists `names` and one more (as `user@127.0.0.1:8080`)
    /// the way the command writes them, and the candidates a completion script should read from
    /// it as text: each account's JSON string with the backslash of each escape dropped, which
    /// is the name itself unless it holds a control character (`\n` offers `n`).
    static func storedAccounts(_ names: [String], in folder: TemporaryDirectory) throws -> (standIn: String, offered: Set<String>) {
        // One that holds a quote and a backslash, every time: offered whole.
        let accounts = (names + [#"say"hi\"#]).map { "\($0)@127.0.0.1:8080" }
        let rows = accounts.map { JSONValue.object([("account", .string($0)), ("instance", .string("http://127.0.0.1:8080"))]) }
        try JSONValue.object([("accounts", .array(rows))]).rendered()
            .write(toFile: folder.file("accounts.json"), atomically: true, encoding: .utf8)
        let offered = accounts.map { account in
            var text = String.UnicodeScalarView()
            var escaping = false
            for scalar in JSONValue.string(account).rendered().unicodeScalars.dropFirst().dropLast() {
                if !escaping, scalar == "\\" {
                    escaping = true
                    continue
                }
                escaping = false
                text.append(scalar)
            }
            return String(text)
        }
        return ("#!/bin/sh\ncat '\(folder.file("accounts.json"))'\n", Set(offered))
    }

    /// Lines typed before Tab: the first two offer every account between them (fish offers a word
    /// starting with a dot only after a dot); the others end in shell syntax.
    static let completedLines = ["gitbay-sync pause ", "gitbay-sync remove-account .", "gitbay-sync remove-account $", "gitbay-sync push on `"]

    @Test("the bash completion offers every stored name, hostile or not, as the word bash reads back, and runs none")
    func bashCompletionRunsNothing() async throws {
        let (_, count, seed) = FuzzInput.start("completed user names", default: 80)
        let folder = try TemporaryDirectory()
        let canary = folder.file("PWNED")
        let (standIn, offered) = try Self.storedAccounts(Self.names(count: count, seed: seed, canary: canary), in: folder)
        let completer = try BashCompletionTests.Completer(standIn: standIn)

        let answers = try await completer.complete(Self.completedLines)

        // Each candidate goes onto the line quoted: what bash reads back from it when the line runs.
        let script = "cd '\(folder.path)' || exit 1\n" + answers[0...1].joined().map { "printf '%s\\0' \($0)\n" }.joined()
        try script.write(toFile: folder.file("read-back.bash"), atomically: true, encoding: .utf8)
        let bash = try BuiltBinary(executable: "/bin/bash", environment: ["PATH": "/usr/bin:/bin", "HOME": folder.path], folder: folder)
        let readBack = try await bash.run([folder.file("read-back.bash")])
        #expect(readBack.code == 0, "seed \(seed): \(readBack.err)")
        let words = readBack.out.split(separator: "\0", omittingEmptySubsequences: false).dropLast().map(String.init)
        #expect(words.count == answers[0].count + answers[1].count, "seed \(seed): a candidate read back as other than one word")
        #expect(Set(words) == offered, "seed \(seed): offered \(Set(words).symmetricDifference(offered))")
        #expect(!FileManager.default.fileExists(atPath: canary), "seed \(seed): completing ran a name")
    }

    @Test("the zsh and fish completions offer every stored name, hostile or not, as text, and run none", arguments: [Shell.zsh, .fish])
    func zshFishCompletionRunsNothing(_ shell: Shell) async throws {
        let path = try ZshFishCompletionTests.required(shell.rawValue)
        let (_, count, seed) = FuzzInput.start("\(shell) completed user names", default: 80)
        let folder = try TemporaryDirectory()
        let canary = folder.file("PWNED")
        let (standIn, offered) = try Self.storedAccounts(Self.names(count: count, seed: seed, canary: canary), in: folder)
        let driver = shell == .zsh ? ZshFishCompletionTests.zshDriver : ZshFishCompletionTests.fishDriver

        let answers = try await ZshFishCompletionTests.complete(shell, at: path, driver: driver, lines: Self.completedLines, standIn: standIn)

        let answer = answers[0].union(answers[1])
        #expect(answer == offered, "seed \(seed), \(shell): offered \(answer.symmetricDifference(offered))")
        #expect(!FileManager.default.fileExists(atPath: canary), "seed \(seed), \(shell): completing ran a name")
    }
}
