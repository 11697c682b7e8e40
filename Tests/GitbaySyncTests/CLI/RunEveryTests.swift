import Foundation
import GitbayFake
import TestSupport
import Testing

@testable import GitbayAPI
@testable import GitbayReconcile
@testable import GitbayState
@testable import GitbaySupport
@testable import GitbaySync
@testable import PushResolve

@Suite("run --every", .timeLimit(.minutes(1)))
struct RunEveryTests {
    /// A clock the timer's sleeps move forward, so backoff is measured without waiting.
    final class TestClock: Sendable {
        private let now = LockedBox(Date(timeIntervalSince1970: 2_000_000_000))
        var date: Date { now.value }
        func advance(_ duration: Duration) { now.mutate { $0 += Double(duration.components.seconds) } }
    }

    /// Runs `run --every` with sleeps that advance `clock` and return at once, calling
    /// `between(n)` in the n-th sleep; stops after `cycles` cycles.
    static func runTimer(
        _ cli: CLIHarness, every: String = "20s", cycles: Int, extra: [String] = ["--json"], clock: TestClock = TestClock(),
        between: @escaping @Sendable (Int) async -> Void = { _ in }
    ) async -> CLIResult {
        let shutdown = ShutdownSignal()
        let sleeps = LockedBox(0)
        return await cli.run(["run", "--every", every] + extra) { context in
            context.shutdown = shutdown
            context.now = { clock.date }
            context.random = { 0 }
            context.sleep = { duration in
                sleeps.mutate { $0 += 1 }
                clock.advance(duration)
                await between(sleeps.value)
                if sleeps.value >= cycles { shutdown.request() }
            }
        }
    }

    /// Each stdout line as a JSON object.
    static func cycles(_ result: CLIResult) throws -> [[String: Any]] {
        try result.out.split(separator: "\n").map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        }
    }

    static func actions(_ cycle: [String: Any]) -> [String: String] {
        let accounts = cycle["accounts"] as? [[String: Any]] ?? []
        return Dictionary(uniqueKeysWithValues: accounts.map { ($0["account"] as! String, $0["action"] as! String) })
    }

    @Test("an account signed in while the timer sleeps is registered on the next cycle")
    func newAccountNextCycle() async throws {
        let server = try FakeGitbayServer()
        let cli = try CLIHarness()
        let alice = try await cli.login(server, "alice")
        #expect(await cli.run(["device", "set-token"], stdin: "c0ffee00aaaabbbbccccdddd").code == 0)
        let bob = LockedBox("")
        let other = try FakeGitbayServer()
        let result = await Self.runTimer(cli, cycles: 2) { sleep in
            guard sleep == 1 else { return }
            // What another process's sign-in stores. (`login` would also register at once;
            // storing only the account shows the timer itself picking it up.)
            do {
                let store = try await cli.store()
                let account = try await store.signIn(
                    instance: try InstanceURL(parsing: other.baseURL), username: "bob", apiToken: Secret(other.mintToken(for: "bob"))
                )
                bob.mutate { $0 = account.name }
            } catch {
                Issue.record("sign-in failed: \(error)")
            }
        }
        #expect(result.code == 0, "\(result.err)")
        let cycles = try Self.cycles(result)
        #expect(cycles.count == 2)
        #expect(cycles.map { $0["cycle"] as? Int } == [1, 2])
        #expect(Self.actions(cycles[0]) == [alice: "added"])
        #expect(Self.actions(cycles[1]) == [alice: "unchanged", bob.value: "added"])
        #expect(cycles[0]["ok"] as? Bool == true)
        #expect(cycles[0]["next_cycle_in_seconds"] as? Int == 18)
        #expect(other.devices(of: "bob").count == 1)
        #expect(result.err.contains("\(bob.value): added"))
        #expect(!result.err.contains("\(alice): unchanged"), "unchanged accounts stay quiet without -v")
        #expect(result.err.contains("stopping"))
        #expect(result.err.hasSuffix("stopped"))
    }

    @Test("a token rotation and a removal by another process take effect on the next cycle")
    func rotationAndRemoval() async throws {
        let server = try FakeGitbayServer()
        let cli = try CLIHarness()
        let alice = try await cli.login(server, "alice")
        let other = try FakeGitbayServer()
        let carol = try await cli.login(other, "carol")
        #expect(await cli.run(["device", "set-token"], stdin: "c0ffee00aaaabbbbccccdddd").code == 0)
        let result = await Self.runTimer(cli, cycles: 2) { sleep in
            guard sleep == 1 else { return }
            // Local changes between cycles count from the next cycle.
            #expect(await cli.run(["device", "set-token"], stdin: "beef0000aaaabbbbccccdddd").code == 0)
            #expect(await cli.run(["remove-account", carol]).code == 0)
        }
        #expect(result.code == 0, "\(result.err)")
        let cycles = try Self.cycles(result)
        #expect(Self.actions(cycles[0]) == [alice: "added", carol: "added"])
        #expect(Self.actions(cycles[1]) == [alice: "rotated"])
        #expect(server.devices(of: "alice").map(\.token) == ["beef0000aaaabbbbccccdddd"])
        #expect(other.devices(of: "carol").isEmpty)
    }

    @Test("a failing account waits out its own backoff while the others keep the schedule")
    func perAccountBackoff() async throws {
        let server = try FakeGitbayServer()
        let bobsServer = try FakeGitbayServer()
        let cli = try CLIHarness()
        let alice = try await cli.login(server, "alice")
        let bob = try await cli.login(bobsServer, "bob")
        #expect(await cli.run(["device", "set-token"], stdin: "c0ffee00aaaabbbbccccdddd").code == 0)
        // Bob's row gets another id than alice's: an id both servers give out is checked with
        // one more list (did the row move?), which is not what this test counts.
        _ = bobsServer.insertDevice(owner: "zed", token: "zed's phone", label: "phone")
        // Bob's server asks for 100 s of quiet, longer than the 20 s period.
        bobsServer.inject(.rateLimited(retryAfter: 100), command: "notifications device list", user: "bob")
        bobsServer.resetRequests()
        let clock = TestClock()
        let result = await Self.runTimer(cli, cycles: 7, clock: clock)
        #expect(result.code == 0, "\(result.err)")
        let cycles = try Self.cycles(result)
        #expect(cycles.count == 7)
        // Sleeps are 18 s (the period less a tenth): cycles start at 0, 18, 36, 54, 72, 90, 108 s.
        #expect(cycles.map { Self.actions($0)[bob] } == ["failed", "skipped", "skipped", "skipped", "skipped", "skipped", "added"])
        #expect(cycles.allSatisfy { Self.actions($0)[alice] != nil && Self.actions($0)[alice] != "skipped" })
        #expect(bobsServer.requests().filter { $0.user == "bob" }.count == 4, "one refused list, then a list, an add and the list that confirms it")
        #expect(cycles[0]["ok"] as? Bool == false)
        #expect(result.err.contains("\(bob): failed"))
        #expect(result.err.components(separatedBy: "\(bob):").count == 3, "bob's line for the failure and for the add, none while waiting")
    }

    @Test("a failing account backs off exponentially up to the period")
    func backoffCeiling() async throws {
        let server = try FakeGitbayServer()
        let cli = try CLIHarness()
        let alice = try await cli.login(server, "alice")
        #expect(await cli.run(["device", "set-token"], stdin: "c0ffee00aaaabbbbccccdddd").code == 0)
        server.inject(.status(502, body: "<html>bad gateway</html>"), command: "notifications device list", times: 100)
        let result = await Self.runTimer(cli, every: "10m", cycles: 3)
        let cycles = try Self.cycles(result)
        #expect(cycles.map { Self.actions($0)[alice] } == ["failed", "failed", "failed"])
        let store = try await cli.store()
        let account = try #require(try await store.account(named: alice))
        let status = try await store.status(ofAccount: account.id)
        #expect(status.failures == 3)
        // Three failures: 4 minutes, within the 10 minute ceiling, from the last attempt.
        let attempt = try #require(status.lastAttemptAt)
        #expect(status.nextRetryAt == attempt.addingTimeInterval(240))
    }

    @Test("stopping during a cycle finishes it, starts no other, and exits 0")
    func stopDuringCycle() async throws {
        let server = try FakeGitbayServer()
        let cli = try CLIHarness()
        _ = try await cli.login(server, "alice")
        #expect(await cli.run(["device", "set-token"], stdin: "c0ffee00aaaabbbbccccdddd").code == 0)
        server.resetRequests()
        server.latency = .milliseconds(200)
        let shutdown = ShutdownSignal()
        let sleeps = LockedBox(0)
        // Ask to stop as soon as the first request of the cycle has been answered.
        let stopper = Task {
            while server.requests().isEmpty { try await Task.sleep(for: .milliseconds(5)) }
            shutdown.request()
        }
        let result = await cli.run(["run", "--every", "10m"]) { context in
            context.shutdown = shutdown
            context.sleep = { _ in sleeps.mutate { $0 += 1 } }
        }
        try await stopper.value
        #expect(result.code == 0, "\(result.err)")
        #expect(sleeps.value == 0)
        #expect(server.devices(of: "alice").count == 1, "the add in flight was let finish")
        #expect(result.err.contains("stopping: no new work"))
        #expect(result.err.contains("alice@127.0.0.1:\(server.port): added"))
    }

    @Test("a second signal cancels at once and says so")
    func secondSignal() async throws {
        let cli = try CLIHarness()
        // A database with no account: the timer needs one, and never creates it.
        #expect(await cli.run(["device", "set-token"], stdin: "c0ffee00aaaabbbbccccdddd").code == 0)
        let shutdown = ShutdownSignal()
        let result = await cli.run(["run", "--every", "10m"]) { context in
            context.shutdown = shutdown
            context.sleep = { _ in
                shutdown.request()
                shutdown.request()
            }
        }
        #expect(result.code == 69)
        #expect(result.err.contains("Error: interrupted"))
    }

    @Test("under systemd each line carries its journal priority; -v adds unchanged accounts and a cycle summary")
    func journalLines() async throws {
        let server = try FakeGitbayServer()
        let cli = try CLIHarness()
        let alice = try await cli.login(server, "alice")
        #expect(await cli.run(["device", "set-token"], stdin: "c0ffee00aaaabbbbccccdddd").code == 0)
        let shutdown = ShutdownSignal()
        let result = await cli.run(["run", "--every", "15m", "-v"], extraEnvironment: ["JOURNAL_STREAM": "8:12345"]) { context in
            // stderr is the stream systemd named.
            context.streamIdentity = { $0 == 2 ? "8:12345" : "1:1" }
            context.shutdown = shutdown
            context.random = { 0.5 }
            context.sleep = { _ in shutdown.request() }
        }
        #expect(result.code == 0)
        #expect(result.out.isEmpty, "text mode writes nothing on stdout")
        let lines = result.err.split(separator: "\n").map(String.init).filter { !$0.hasPrefix("info ") && !$0.hasPrefix("debug ") }
        #expect(lines.first == "<6>gitbay-sync \(HelpText.version): reconciling every 15m (±10%); stop with SIGTERM or Ctrl-C")
        #expect(lines.contains { $0.hasPrefix("<5>\(alice): added, device ") })
        #expect(lines.contains("<6>cycle 1: 1 account, 1 changed, 0 failed, 3 requests; next in 15m"))
        #expect(lines.last == "<6>stopped")
    }
}
