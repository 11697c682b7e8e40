import Foundation
import GitbayFake
import Testing

@testable import GitbaySupport
@testable import GitbaySync

/// The commands that reconcile on their way (`device clear`, `prefer`, `pause`, `resume`) print
/// each account's line as it is done, as `run` does, so a hung server holds back only its own
/// accounts; a stop names those not done and ends the command by the signal.
@Suite("Commands that reconcile on their way", .timeLimit(.minutes(1)))
struct LiveReconcileTests {
    @Test("device clear: alice's line is printed while bob's server hangs; Ctrl-C then names bob and exits 130")
    func deviceClear() async throws {
        let setup = try await RunProgressTests.Setup()
        let shutdown = ShutdownSignal()
        let result = await setup.cli.run(["device", "clear"]) { context in
            context.shutdown = shutdown
            RunProgressTests.watching(&context) { line in
                if line.hasPrefix(setup.alice) { shutdown.request() }
            }
        }
        #expect(result.code == 130, "\(result.err)")
        #expect(result.out.hasPrefix("\(setup.alice)  removed"), "\(result.out)")
        #expect(result.out.contains("removed from 1 of 2 accounts, not yet from \(setup.bob)"), "\(result.out)")
        #expect(!result.err.contains("took longer"), "bob was stopped, not timed out: \(result.err)")
        let last = result.err.split(separator: "\n").last.map(String.init)
        #expect(last == "Error: interrupted: 1 of 2 accounts not asked to the end: \(setup.bob).", "\(result.err)")
    }

    @Test("prefer on a hung server: Ctrl-C stops it at once, names the accounts not done and exits 130")
    func preferOnHungServer() async throws {
        let (server, cli) = (try FakeGitbayServer(), try CLIHarness())
        #expect(await cli.run(["device", "set-token"], stdin: "c0ffee00aaaabbbbccccdddd").code == 0)
        let alice = try await cli.login(server, "alice")
        let carol = try await cli.login(server, "carol")
        server.inject(.hang, command: "notifications device list", times: 10)
        server.resetRequests()
        let shutdown = ShutdownSignal()
        let stopper = Task {
            while !server.requests().contains(where: { $0.argv.contains("list") }) { try await Task.sleep(for: .milliseconds(5)) }
            shutdown.request()
        }
        let result = await cli.run(["prefer", carol]) { context in context.shutdown = shutdown }
        try await stopper.value
        #expect(result.code == 130, "\(result.err)")
        #expect(result.out.contains("\(carol) is now the preferred account"), "\(result.out)")
        #expect(!result.err.contains("took longer"), "stopped, not timed out: \(result.err)")
        let last = result.err.split(separator: "\n").last.map(String.init)
        #expect(last == "Error: interrupted: 2 of 2 accounts not asked to the end: \(alice), \(carol).", "\(result.err)")
    }
}
