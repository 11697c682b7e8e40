import Foundation
import GitbayFake
import Testing

@testable import GitbayReconcile
@testable import GitbayState
@testable import GitbaySupport
@testable import GitbaySync

/// `run` is never silent: each account's line comes as the account is done, a terminal's
/// standard error names the accounts still in flight, and a stop says what it left.
@Suite("run progress", .timeLimit(.minutes(1)))
struct RunProgressTests {
    /// Alice on a server that answers, bob on one whose lists hang; both registered already.
    struct Setup {
        let cli: CLIHarness
        let fast: FakeGitbayServer
        let hung: FakeGitbayServer
        let alice: String
        let bob: String

        init() async throws {
            (fast, hung, cli) = (try FakeGitbayServer(), try FakeGitbayServer(), try CLIHarness())
            #expect(await cli.run(["device", "set-token"], stdin: "c0ffee00aaaabbbbccccdddd").code == 0)
            alice = try await cli.login(fast, "alice")
            bob = try await cli.login(hung, "bob")
            // Only the run's requests count from here.
            hung.resetRequests()
            hung.inject(.hang, command: "notifications device list", times: 10)
        }

        /// Returns once bob's list hangs on his server.
        func bobHangs() async throws {
            while !hung.requests().contains(where: { $0.user == "bob" && $0.argv.contains("list") }) {
                try await Task.sleep(for: .milliseconds(5))
            }
        }
    }

    /// Steps a test gives the status line's redraws, one at a time.
    final class Steps: Sendable {
        private let state = LockedBox<(permits: Int, waiting: [CheckedContinuation<Void, Never>])>((0, []))

        func release() {
            var resumed: CheckedContinuation<Void, Never>?
            state.mutate { state in
                if state.waiting.isEmpty { state.permits += 1 } else { resumed = state.waiting.removeFirst() }
            }
            resumed?.resume()
        }

        func next() async {
            await withCheckedContinuation { continuation in
                var now = false
                state.mutate { state in
                    if state.permits > 0 {
                        state.permits -= 1
                        now = true
                    } else {
                        state.waiting.append(continuation)
                    }
                }
                if now { continuation.resume() }
            }
        }
    }

    /// `console.out`, calling `then` after each line.
    static func watching(_ context: inout CLIContext, then: @escaping @Sendable (String) -> Void) {
        let out = context.console.out
        context.console.out = { line in
            out(line)
            then(line)
        }
    }

    @Test("each account's line is printed as it is done, while another instance still hangs")
    func linesAsDone() async throws {
        let setup = try await Setup()
        let shutdown = ShutdownSignal()
        // Stopped as alice's line comes: bob's list still hangs, and only a line printed before the end can stop it.
        let result = await setup.cli.run(["run"]) { context in
            context.shutdown = shutdown
            Self.watching(&context) { line in
                if line.hasPrefix(setup.alice) { shutdown.request() }
            }
        }
        #expect(result.out.split(separator: "\n").contains { $0.hasPrefix("\(setup.alice)  unchanged, device ") }, "\(result.out)")
        #expect(!result.out.contains(setup.bob), "\(result.out)")
        #expect(!result.err.contains("took longer"), "bob was stopped, not timed out: \(result.err)")
        #expect(result.code == 130, "\(result.err)")
    }

    @Test("Ctrl-C records and prints the accounts done before it, names the others, and exits 130")
    func interrupted() async throws {
        let setup = try await Setup()
        let before = try await setup.cli.store()
        let bobBefore = try await before.status(ofAccount: try #require(try await before.account(named: setup.bob)).id)
        let shutdown = ShutdownSignal()
        let runAt = Date(timeIntervalSince1970: 2_100_000_000)
        // Ctrl-C once alice is done, bob's list still hanging.
        let result = await setup.cli.run(["run"]) { context in
            context.shutdown = shutdown
            context.now = { runAt }
            Self.watching(&context) { line in
                if line.hasPrefix(setup.alice) { shutdown.request() }
            }
        }
        #expect(result.code == 130, "\(result.err)")
        #expect(result.out.contains("\(setup.alice)  unchanged, device "), "\(result.out)")
        let lines = result.err.split(separator: "\n")
        #expect(lines.last?.hasPrefix("Error: interrupted: 1 of 2 accounts not done: \(setup.bob).") == true, "\(result.err)")
        #expect(!result.err.contains("Check the network"), "\(result.err)")
        let store = try await setup.cli.store()
        let alice = try await store.status(ofAccount: try #require(try await store.account(named: setup.alice)).id)
        #expect(alice.lastSuccessAt == runAt, "alice's verdict is recorded as any run's")
        let bob = try await store.status(ofAccount: try #require(try await store.account(named: setup.bob)).id)
        #expect(bob == bobBefore, "nothing of bob's cut-short pass is recorded")
    }

    @Test("on a terminal, a status line names the accounts in flight for a second, and is cleared when the run ends")
    func statusLine() async throws {
        let setup = try await Setup()
        let shutdown = ShutdownSignal()
        let clock = LockedBox(Date(timeIntervalSince1970: 2_100_000_000))
        let steps = Steps()
        let raw = Lines()
        let result = await setup.cli.run(["run"]) { context in
            context.shutdown = shutdown
            context.now = { clock.value }
            context.console.errorIsTerminal = true
            context.terminalColumns = { _ in 200 }
            context.console.errRaw = { text in
                raw.append(text)
                if text.contains(setup.bob) { shutdown.request() }
            }
            // A redraw after alice's line, two seconds later.
            context.statusLine.delay = .seconds(1)
            context.statusLine.tick = {
                await steps.next()
                clock.mutate { $0 += 2 }
            }
            Self.watching(&context) { line in
                if line.hasPrefix(setup.alice) { steps.release() }
            }
        }
        #expect(result.code == 130, "\(result.err)")
        #expect(raw.all.first == "\r" + "waiting 2s on 1 account: \(setup.bob)" + "\u{1B}[K", "\(raw.all)")
        #expect(raw.all.last == "\r\u{1B}[K", "cleared at the end: \(raw.all)")
        #expect(!result.err.contains("waiting"), "the status line is never a line of its own: \(result.err)")
    }

    @Test("through a pipe or with --json there is no status line", arguments: [false, true])
    func noStatusLine(json: Bool) async throws {
        let setup = try await Setup()
        let shutdown = ShutdownSignal()
        let raw = Lines()
        let stopper = Task {
            try await setup.bobHangs()
            shutdown.request()
        }
        let result = await setup.cli.run(["run"] + (json ? ["--json"] : [])) { context in
            context.shutdown = shutdown
            // With --json, standard error is a terminal; without, it is not.
            context.console.errorIsTerminal = json
            context.console.errRaw = { raw.append($0) }
            // Shown at once, were it shown: the account done first leaves the other in flight.
            context.statusLine.delay = .zero
            context.statusLine.tick = { try await Task.sleep(for: .seconds(3600)) }
        }
        try await stopper.value
        #expect(result.code == 130, "\(result.err)")
        #expect(raw.all.isEmpty, "\(raw.all)")
    }

    @Test("a stop under --every that cuts an account's requests short says it stopped, not that the network failed")
    func stopUnderEvery() async throws {
        let setup = try await Setup()
        let shutdown = ShutdownSignal()
        let stopper = Task {
            try await setup.bobHangs()
            shutdown.request()
        }
        let result = await setup.cli.run(["run", "--every", "10m"]) { context in
            context.shutdown = shutdown
            context.shutdownGrace = .zero
            context.sleep = { _ in shutdown.request() }
        }
        try await stopper.value
        #expect(result.code == 0, "\(result.err)")
        #expect(result.err.contains("\(setup.bob): stopped: the stop cut its requests short"), "\(result.err)")
        #expect(!result.err.contains("Check the network"), "\(result.err)")
    }

    /// A status line for accounts in flight since some seconds before now, in a width.
    struct StatusCase: Sendable, CustomTestStringConvertible {
        let name: String
        let inFlight: [(String, Int)]
        let width: Int
        let expected: String?
        var testDescription: String { name }
    }

    @Test(
        "the status line names the accounts in flight longest first, as many as fit, and the count of the rest",
        arguments: [
            StatusCase(name: "none in flight for a second yet", inFlight: [("alice@a", 0)], width: 80, expected: nil),
            StatusCase(name: "one", inFlight: [("alice@a", 3)], width: 80, expected: "waiting 3s on 1 account: alice@a"),
            StatusCase(
                name: "all fit, oldest first", inFlight: [("bob@b", 2), ("alice@a", 75)], width: 80,
                expected: "waiting 1m15s on 2 accounts: alice@a, bob@b"),
            StatusCase(
                name: "the rest counted", inFlight: [("alice@a", 9), ("bob@b", 8), ("carol@c", 7)], width: 48,
                expected: "waiting 9s on 3 accounts: alice@a and 2 more"),
            StatusCase(
                name: "a name too long for the width is cut", inFlight: [("alice@a-very-long-host-name", 9)], width: 30,
                expected: "waiting 9s on 1 account: ali…"),
        ])
    func statusText(_ test: StatusCase) {
        let now = Date(timeIntervalSince1970: 2_100_000_000)
        let inFlight = test.inFlight.map { (name: $0.0, since: now - Double($0.1)) }
        let text = RunProgressOutput.text(inFlight, now: now, delay: .seconds(1), width: test.width)
        #expect(text == test.expected)
        if let text { #expect(text.count < test.width) }
    }
}
