import Foundation
import GitbayFake
import Testing

@testable import GitbaySupport
@testable import GitbaySync

/// The commands that ask every account's server (`devices`, `push show`, `doctor`) print each
/// account's answer as it lands (doctor: its status line names the accounts still probed), so a
/// hung server holds back only its own accounts; a stop names those not asked to the end and
/// ends the command by the signal.
@Suite("Commands that ask every server", .timeLimit(.minutes(1)))
struct FanOutProgressTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let arguments: [String]
        /// The start of alice's answer, as printed.
        let answered: String
        var testDescription: String { arguments.joined(separator: " ") }
    }

    static let cases = [
        Case(arguments: ["devices"], answered: "alice@"),
        Case(arguments: ["push", "show"], answered: "alice@"),
    ]

    @Test("alice's answer is printed while bob's server hangs; Ctrl-C then names bob and exits 130", arguments: cases)
    func answersAsTheyLand(_ testCase: Case) async throws {
        let (fast, hung, cli) = (try FakeGitbayServer(), try FakeGitbayServer(), try CLIHarness())
        let alice = try await cli.login(fast, "alice")
        let bob = try await cli.login(hung, "bob")
        hung.inject(.hang, command: "notifications", times: 10)
        let shutdown = ShutdownSignal()
        // Stopped as alice's answer comes: bob's request still hangs, and only an answer printed
        // before the end can stop it.
        let result = await cli.run(testCase.arguments) { context in
            context.shutdown = shutdown
            RunProgressTests.watching(&context) { line in
                if line.hasPrefix(testCase.answered) { shutdown.request() }
            }
        }
        #expect(result.code == 130, "\(result.err)")
        #expect(result.out.hasPrefix(alice), "\(result.out)")
        #expect(!result.out.contains(bob), "\(result.out)")
        #expect(!result.err.contains("took longer"), "bob was stopped, not timed out: \(result.err)")
        let last = result.err.split(separator: "\n").last.map(String.init)
        #expect(last == "Error: interrupted: 1 of 2 accounts not asked to the end: \(bob).", "\(result.err)")
    }

    @Test("with --json, the answers that landed before a stop are one document", arguments: cases)
    func jsonAfterStop(_ testCase: Case) async throws {
        let (fast, hung, cli) = (try FakeGitbayServer(), try FakeGitbayServer(), try CLIHarness())
        let alice = try await cli.login(fast, "alice")
        _ = try await cli.login(hung, "bob")
        hung.inject(.hang, command: "notifications", times: 10)
        let shutdown = ShutdownSignal()
        let stopper = Task {
            while !fast.requests().contains(where: { $0.argv.first == "notifications" && $0.status == 200 }) {
                try await Task.sleep(for: .milliseconds(5))
            }
            // alice's server answered; her answer lands in the command well within a second.
            try await Task.sleep(for: .seconds(1))
            shutdown.request()
        }
        let result = await cli.run(testCase.arguments + ["--json"]) { context in context.shutdown = shutdown }
        try await stopper.value
        #expect(result.code == 130, "\(result.err)")
        let accounts = try result.json()["accounts"] as? [[String: Any]] ?? []
        #expect(accounts.map { $0["account"] as? String } == [alice], "\(result.out)")
    }

    @Test("doctor: alice's checks are made while bob's server hangs, which the status line names; Ctrl-C then names bob and exits 130")
    func doctor() async throws {
        let (fast, hung, cli) = (try FakeGitbayServer(), try FakeGitbayServer(), try CLIHarness())
        let alice = try await cli.login(fast, "alice")
        let bob = try await cli.login(hung, "bob")
        hung.inject(.hang, command: "whoami", times: 10)
        let shutdown = ShutdownSignal()
        let raw = Lines()
        let result = await cli.run(["doctor", "-v"]) { context in
            context.shutdown = shutdown
            context.console.errorIsTerminal = true
            context.terminalColumns = { _ in 400 }
            context.statusLine.delay = .zero
            context.statusLine.tick = { try await Task.sleep(for: .milliseconds(20)) }
            // Ctrl-C once alice's probes are done and only bob's is in flight.
            context.console.errRaw = { text in
                raw.append(text)
                if text.contains("on 1 account: \(bob)") { shutdown.request() }
            }
        }
        #expect(result.code == 130, "\(result.err)")
        #expect(raw.all.contains { $0.contains("on 1 account: \(bob)") }, "\(raw.all)")
        #expect(result.out.contains("OK    account.token  \(alice): valid (whoami: alice)"), "\(result.out)")
        #expect(
            result.out.contains("FAIL  account.reachable  \(bob): not checked: doctor was stopped before \(hung.baseURL) answered"), "\(result.out)")
        #expect(!result.out.contains("cannot be reached"), "bob was stopped, not timed out: \(result.out)")
        let last = result.err.split(separator: "\n").last.map(String.init)
        #expect(last == "Error: interrupted: 1 of 2 accounts not asked to the end: \(bob).", "\(result.err)")
    }
}
