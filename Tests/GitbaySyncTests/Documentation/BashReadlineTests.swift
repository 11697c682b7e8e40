import Foundation
import TestSupport
import Testing

@testable import GitbaySync

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The bash script under bash's own readline: an interactive bash on a pseudo-terminal, a
/// Tab typed, and the line it completed run, so that the stand-in `gitbay-sync` records
/// what readline made of it.
@Suite("Bash completion under readline", .timeLimit(.minutes(1)))
struct BashReadlineTests {
    /// Each line typed, Tab pressed at its end, and the arguments the completed line runs with.
    static let typed: [(line: String, runs: String)] = [
        ("gitbay-sync pause alice@127.0.0.1:", "pause alice@127.0.0.1:8080"),
        ("gitbay-sync pause alice@127.0.0.1:80", "pause alice@127.0.0.1:8080"),
        ("gitbay-sync push on bob@", "push on bob@gitbay.org"),
        ("gitbay-sync devices rm al", "devices rm alice@127.0.0.1:8080"),
        ("gitbay-sync --db=/tmp/x.db logout alice@127.0.0.1:", "--db=/tmp/x.db logout alice@127.0.0.1:8080"),
    ]

    @Test("a word ending in a colon completes to one account, not to a second colon")
    func colon() async throws {
        let completer = try BashCompletionTests.Completer()
        let shown = try await Self.typeInBash(Self.typed.map { $0.line + "\t\n" }, completer: completer)
        let ran = completer.calls.filter { !$0.hasSuffix("accounts --json") }
        #expect(ran == Self.typed.map(\.runs), "\(shown)")
    }

    /// A name no gitbay gives, as a hostile server could have had stored: a command
    /// substitution that leaves a file behind if anything evaluates it.
    static let hostileAccount = "$(touch${IFS}{folder}/PWNED)@127.0.0.1:8080"

    @Test("an account name is offered as data: Tab neither runs it nor lets the line run it")
    func hostileName() async throws {
        let completer = try BashCompletionTests.Completer(
            standIn: """
                #!/bin/sh
                printf '%s\\n' "$*" >> "$(dirname "$0")/calls"
                echo '{"accounts":[{"account":"\(Self.hostileAccount)"}]}'
                """)
        let shown = try await Self.typeInBash(["gitbay-sync pause \t\n"], completer: completer)
        let folder = completer.folder
        #expect(!FileManager.default.fileExists(atPath: folder.file("PWNED")), "\(shown)")
        // The completed line ran with the name as one literal word.
        let name = Self.hostileAccount.replacingOccurrences(of: "{folder}", with: folder.path)
        #expect(completer.calls.filter { !$0.hasSuffix("accounts --json") } == ["pause \(name)"], "\(shown)")
    }

    /// Types each of `lines` at a prompt of an interactive bash that sourced the script, then
    /// `exit`; what the terminal showed.
    static func typeInBash(_ lines: [String], completer: BashCompletionTests.Completer) async throws -> String {
        let folder = completer.folder
        try "source \(folder.file("completion.bash"))\nPS1='ready> '\n".write(toFile: folder.file("rc"), atomically: true, encoding: .utf8)
        let bash = try BuiltBinary(
            executable: "/bin/bash", environment: ["PATH": folder.file("bin") + ":/usr/bin:/bin", "HOME": folder.path, "TERM": "dumb"],
            folder: folder)
        let terminal = try PseudoTerminal()
        defer { terminal.closeBoth() }
        let shell = try bash.start(["--rcfile", folder.file("rc"), "-i"], terminal: terminal.follower)
        var shown = ""
        for line in lines {
            try await waitFor(terminal.controller, until: "ready> ", into: &shown)
            type(line, on: terminal.controller)
        }
        try await waitFor(terminal.controller, until: "ready> ", into: &shown)
        type("exit\n", on: terminal.controller)
        let finished = await shell.finish(timeout: .seconds(20))
        #expect(finished.code == 0, "\(shown)")
        return shown
    }

    static func type(_ text: String, on controller: Int32) {
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { write(controller, $0.baseAddress, $0.count) }
    }

    /// Reads the terminal until the text shown since the last prompt holds `marker` once more.
    static func waitFor(_ controller: Int32, until marker: String, into shown: inout String) async throws {
        _ = fcntl(controller, F_SETFL, fcntl(controller, F_GETFL) | O_NONBLOCK)
        let seen = shown.components(separatedBy: marker).count
        let deadline = ContinuousClock.now + .seconds(20)
        var chunk = [UInt8](repeating: 0, count: 4096)
        while shown.components(separatedBy: marker).count == seen {
            let count = chunk.withUnsafeMutableBytes { read(controller, $0.baseAddress, $0.count) }
            if count > 0 {
                shown += String(decoding: chunk[..<count], as: UTF8.self)
            } else {
                guard ContinuousClock.now < deadline else {
                    Issue.record("no prompt: \(shown)")
                    throw CancellationError()
                }
                try await Task.sleep(for: .milliseconds(10))
            }
        }
    }
}
