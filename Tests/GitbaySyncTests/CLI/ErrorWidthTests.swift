import Foundation
import GitbayFake
import Testing

@testable import GitbaySync

/// A failed account's `Error:` line and the count that follows it fit the terminal stderr is
/// on, wrapped at spaces under a hanging indent; off a terminal each stays one whole line.
@Suite("Failure lines at the terminal's width")
struct ErrorWidthTests {
    @Test("a run whose server is down: on an 80-column terminal no stderr line is wider; off one the Error line is whole")
    func failedRunFits() async throws {
        let (up, down, cli) = (try FakeGitbayServer(), try FakeGitbayServer(), try CLIHarness())
        _ = try await cli.login(up, "alice")
        let carol = try await cli.login(down, "carol")
        _ = await cli.run(["device", "set-token"], stdin: String(repeating: "ab", count: 32))
        down.isDown = true

        let onTerminal = await cli.run(["run"]) { context in
            context.console.errorIsTerminal = true
            context.terminalColumns = { $0 == 2 ? 80 : nil }
        }
        #expect(onTerminal.code == 1, "\(onTerminal.err)")
        let lines = onTerminal.err.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines.contains { $0.hasPrefix("Error: \(carol)") }, "\(onTerminal.err)")
        #expect(lines.allSatisfy { $0.count <= 80 }, "\(onTerminal.err)")
        #expect(lines.contains { $0.hasPrefix("    ") }, "a wrapped line hangs under its first: \(onTerminal.err)")

        let offTerminal = await cli.run(["run", "--now"])
        let whole = offTerminal.err.split(separator: "\n").first { $0.hasPrefix("Error: \(carol)") }
        #expect((whole?.count ?? 0) > 80, "off a terminal the line is whole: \(offTerminal.err)")
    }
}
