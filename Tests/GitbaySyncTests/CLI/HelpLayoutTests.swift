import Foundation
import TestSupport
import Testing

@testable import GitbaySync

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

@Suite("Help wrapped to the terminal's width")
struct HelpLayoutTests {
    /// Every help text there is: the program's, each command's under each of its names, each
    /// group's.
    static var topics: [[String]?] {
        let groups = Set(CommandRegistry.specs.map { $0.words[0] }).sorted().filter { CommandRegistry.isGroup([$0]) }.map { [$0] }
        return [nil] + CommandRegistry.specs.flatMap { [$0.words] + $0.aliasWords } + groups
    }

    /// Whether a line too wide for its width holds one word that cannot be broken: after its
    /// indentation, no space but inside backticks or quotes, between a redirection or a pipe
    /// and its word, or before the ` \` that continues a shell line.
    static func unbreakable(_ line: String) -> Bool {
        var rest = Substring(line.drop { $0 == " " })
        if rest.hasSuffix(" \\") { rest = rest.dropLast(2) }
        for operation in ["> ", "< ", "| "] where rest.hasPrefix(operation) { rest = rest.dropFirst(2) }
        var quote: Character?
        for character in rest {
            if let open = quote {
                if character == open { quote = nil }
            } else if character == " " {
                return false
            } else if character == "`" || character == "'" || character == "\"" {
                quote = character
            }
        }
        return true
    }

    /// The words a text shows, whatever its line breaks: the ` \` of a broken shell line is no
    /// word, nor is the `#` that continues a comment on the next line.
    static func words(_ text: String) -> [String] {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map { $0.drop { $0 == " " } }
        let continued = zip([""] + lines, lines).map { previous, line in
            previous.hasPrefix("# ") && line.hasPrefix("# ") ? line.dropFirst(2) : line
        }
        return continued.flatMap { $0.split(separator: " ").map(String.init) }.filter { $0 != "\\" }
    }

    @Test("no help line is wider than the width but for a word that cannot be broken", arguments: [40, 80, 120])
    func width(_ width: Int) {
        for topic in Self.topics {
            for line in HelpText.topic(topic, width: width).split(separator: "\n").map(String.init) where line.count > width {
                #expect(Self.unbreakable(line), "\(topic ?? []) at \(width): \(line)")
            }
        }
        for words in Self.topics.compactMap({ $0 }) {
            let usage = HelpText.usageLines(words, width: width) ?? []
            #expect(!usage.isEmpty, "\(words)")
            for line in usage where line.count > width { #expect(Self.unbreakable(line), "\(words) at \(width): \(line)") }
        }
    }

    @Test("wrapping only moves line breaks: every width shows the same words in the same order", arguments: [40, 80, 120])
    func sameWords(_ width: Int) {
        for topic in Self.topics {
            #expect(Self.words(HelpText.topic(topic, width: width)) == Self.words(HelpText.topic(topic, width: 10_000)), "\(topic ?? [])")
        }
    }

    @Test("the width is used: a wider one gives longer lines")
    func widthUsed() {
        let longest = [40, 80, 120].map { width in
            HelpText.program(width: width).split(separator: "\n").map(String.init).filter { !Self.unbreakable($0) }.map(\.count).max() ?? 0
        }
        #expect(longest[0] <= 40 && longest[1] > 40 && longest[1] <= 80 && longest[2] > 80 && longest[2] <= 120, "\(longest)")
    }

    struct WidthCase: Sendable, CustomTestStringConvertible {
        let columns: String?
        let terminal: Int?
        let width: Int
        var testDescription: String { "COLUMNS=\(columns ?? "(unset)"), terminal \(terminal.map(String.init) ?? "none")" }
    }

    @Test(
        "the width is COLUMNS when it is a number, else the terminal's, else 80",
        arguments: [
            WidthCase(columns: "120", terminal: 50, width: 120), WidthCase(columns: nil, terminal: 50, width: 50),
            WidthCase(columns: nil, terminal: nil, width: 80), WidthCase(columns: "wide", terminal: 50, width: 50),
            WidthCase(columns: "0", terminal: nil, width: 80), WidthCase(columns: "-3", terminal: 100, width: 100),
            WidthCase(columns: "", terminal: nil, width: 80), WidthCase(columns: "40", terminal: nil, width: 40),
        ])
    func resolved(_ test: WidthCase) {
        let environment = test.columns.map { ["COLUMNS": $0] } ?? [:]
        #expect(TerminalWidth.resolve(environment: environment, terminalColumns: test.terminal) == test.width)
    }

    @Test("--help and a usage error's usage lines follow COLUMNS, else the terminal of their stream")
    func commandLine() async throws {
        let cli = try CLIHarness()
        #expect(await cli.run(["--help"]).out == HelpText.program(width: 80))
        #expect(await cli.run(["--help"], extraEnvironment: ["COLUMNS": "40"]).out == HelpText.program(width: 40))
        let onTerminal = await cli.run(["run", "--help"]) { $0.terminalColumns = { $0 == 1 ? 120 : nil } }
        #expect(onTerminal.out == HelpText.topic(["run"], width: 120))
        let refused = await cli.run(["run", "--nonsense"], extraEnvironment: ["COLUMNS": "40"])
        let usage = try #require(HelpText.usageLines(["run"], width: 40))
        #expect(usage.count > 1)
        #expect(refused.err == (["Error: unknown option '--nonsense' for 'run'"] + usage + ["See 'gitbay-sync run --help'."]).joined(separator: "\n"))
        // The usage error is on stderr: the width of stdout's terminal is not its own.
        let errTerminal = await cli.run(["run", "--nonsense"]) { $0.terminalColumns = { $0 == 2 ? 40 : nil } }
        #expect(errTerminal.err == refused.err)
    }

    @Test("the built binary reads the width of the terminal it writes to, and COLUMNS over it")
    func terminal() async throws {
        let folder = try TemporaryDirectory()
        for (columns, width) in [(nil, 50), ("70", 70)] as [(String?, Int)] {
            let binary = try BuiltBinary.located(in: folder, adding: columns.map { ["COLUMNS": $0] } ?? [:])
            let terminal = try PseudoTerminal()
            defer { terminal.closeBoth() }
            var size = winsize(ws_row: 24, ws_col: 50, ws_xpixel: 0, ws_ypixel: 0)
            #if canImport(Glibc)
            try #require(ioctl(terminal.follower, UInt(TIOCSWINSZ), &size) == 0)
            #else
            try #require(ioctl(terminal.follower, TIOCSWINSZ, &size) == 0)
            #endif
            let finished = await (try binary.start(["completions", "--help"], terminal: terminal.follower)).finish(timeout: .seconds(30))
            #expect(finished.code == 0)
            let shown = Self.drain(terminal.controller).replacingOccurrences(of: "\r\n", with: "\n")
            #expect(shown == HelpText.topic(["completions"], width: width) + "\n", "\(shown)")
        }
    }

    /// What a pseudo-terminal's controller side holds to read now.
    static func drain(_ controller: Int32) -> String {
        _ = fcntl(controller, F_SETFL, fcntl(controller, F_GETFL) | O_NONBLOCK)
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(controller, $0.baseAddress, $0.count) }
            guard count > 0 else { break }
            bytes += chunk[..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
