import Foundation
import GitbayFake
import TestSupport
import Testing

@testable import GitbayAPI
@testable import GitbayState
@testable import GitbaySupport
@testable import GitbaySync

/// The commands printed for copying, end to end: hostile names stored as an earlier version
/// stored them, the commands `status`, `doctor`, `run` and `accounts` print, and a real `sh`
/// running each one as pasted.
extension UserNameFuzzTests {
    /// Each `gitbay-sync …` span of `text` set in backquotes; a backquote inside single quotes
    /// or after a backslash is part of the span.
    static func printedCommands(in text: String) -> [String] {
        var commands: [String] = []
        var rest = Substring(text)
        while let start = rest.range(of: "`gitbay-sync ") {
            rest = rest[rest.index(after: start.lowerBound)...]
            var command = ""
            var quoted = false
            var escaped = false
            while let character = rest.popFirst(), quoted || escaped || character != "`" {
                command.append(character)
                if escaped {
                    escaped = false
                } else if character == "'" {
                    quoted.toggle()
                } else if character == "\\" && !quoted {
                    escaped = true
                }
            }
            commands.append(command)
        }
        return commands
    }

    /// The argument lists of the calls a stand-in `gitbay-sync` recorded: for each, its count
    /// and its words, each ended by a NUL.
    static func calls(_ output: String) -> [[String]] {
        var fields = output.split(separator: "\0", omittingEmptySubsequences: false).dropLast().map(String.init)[...]
        var calls: [[String]] = []
        while let count = fields.popFirst().flatMap({ Int($0) }), fields.count >= count {
            calls.append(Array(fields.prefix(count)))
            fields = fields.dropFirst(count)
        }
        return calls
    }

    @Test("every command printed for copying holds a stored hostile name as one word, as shown, and pasted into sh runs nothing else")
    func printedCommandsAreData() async throws {
        let (start, count, seed) = FuzzInput.start("printed user names", default: 5)
        var input = start
        let folder = try TemporaryDirectory()
        let canary = folder.file("PWNED")
        let server = try FakeGitbayServer()
        defer { server.stop() }
        let cli = try CLIHarness()
        let alice = try await cli.login(server, "alice")
        #expect(await cli.run(["device", "set-token"], stdin: "aa11bb22eeeeffff00001111").code == 0)
        let instance = try InstanceURL(parsing: server.baseURL)
        let store = try await cli.store()
        // A quote that, quoted once too often, ends the quoting before a command; then fuzzed names.
        var users = ["x'; touch \(canary); '"]
        while users.count <= count {
            let user = Self.hostileName(&input, canary: canary)
            if !UserName.isValid(user) && !users.contains(user) { users.append(user) }
        }
        var accounts: [String] = []
        for user in users {
            let account = "\(user)@127.0.0.1:\(server.port)"
            // Past login's check, as an earlier version stored it.
            _ = try await store.signIn(instance: instance, username: user, apiToken: Secret(server.mintToken(for: user)))
            accounts.append(account)
        }
        var printed: [String] = []
        for arguments in [["status"], ["doctor"], ["run"], ["accounts"]] {
            let result = await cli.run(arguments)
            printed += Self.printedCommands(in: result.out + "\n" + result.err)
        }

        // Pasted, one a line, with a stand-in `gitbay-sync` that records the words it is given.
        try FileManager.default.createDirectory(atPath: folder.file("bin"), withIntermediateDirectories: true)
        try "#!/bin/sh\nprintf '%s\\0' \"$#\" \"$@\"\n".write(toFile: folder.file("bin/gitbay-sync"), atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: folder.file("bin/gitbay-sync"))
        try (["cd '\(folder.path)' || exit 1"] + printed).joined(separator: "\n").appending("\n").write(
            toFile: folder.file("pasted.sh"), atomically: true, encoding: .utf8)
        let sh = try BuiltBinary(
            executable: "/bin/sh", environment: ["PATH": folder.file("bin") + ":/usr/bin:/bin", "HOME": folder.path], folder: folder)
        let pasted = try await sh.run([folder.file("pasted.sh")])
        #expect(pasted.code == 0, "seed \(seed): \(pasted.err)")
        #expect(!FileManager.default.fileExists(atPath: canary), "seed \(seed): pasting a printed command ran a name")
        let calls = Self.calls(pasted.out)
        try #require(calls.count == printed.count, "seed \(seed): the \(printed.count) commands ran as \(calls.count)")

        // A name is printed as every line shows it: as it is, unless it holds what a terminal acts on.
        let shown = Set((accounts + [alice]).map(TerminalText.escaped))
        for (command, words) in zip(printed, calls) {
            #expect((try? ShellWords.split(command)) == ["gitbay-sync"] + words, "seed \(seed): \(command)")
            if command.contains("@127.0.0.1:\(server.port)") {
                #expect(words.contains(where: shown.contains), "seed \(seed): no account read back whole from \(command)")
            }
        }
        for account in accounts {
            #expect(
                calls.contains(["remove-account", TerminalText.escaped(account)]),
                "seed \(seed): no `remove-account` printed for \(account.debugDescription) in \(printed)")
        }
    }
}
