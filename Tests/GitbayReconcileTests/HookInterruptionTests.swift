import Foundation
import GitbayFake
import TestSupport
import Testing

@testable import GitbayReconcile
@testable import GitbayState
@testable import GitbaySupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A stop request while the pre-remove hook runs, driven through `AccountRemoval`.
@Suite("Interrupting a removal while the pre-remove hook runs", .timeLimit(.minutes(1)))
struct HookInterruptionTests {
    /// A hook that starts a long child and waits for it, both ignoring SIGTERM; it notes its
    /// pid and its child's.
    static func stubbornHook(folder: String) -> String {
        """
        trap '' TERM
        sleep 300 &
        echo $! > "\(folder)/child.pid"
        echo $$ > "\(folder)/hook.pid"
        wait
        """
    }

    /// The pids the hook wrote, once it has written both.
    static func hookPids(in folder: String) async throws -> (hook: pid_t, child: pid_t) {
        let end = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < end {
            if let hook = pid(folder + "/hook.pid"), let child = pid(folder + "/child.pid") { return (hook, child) }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw HookDidNotStart()
    }

    struct HookDidNotStart: Error {}

    private static func pid(_ path: String) -> pid_t? {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8), text.hasSuffix("\n") else { return nil }
        return pid_t(text.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// True when `pid` no longer runs; a zombie counts as gone (an orphan's waits for a reaper).
    static func isGone(_ pid: pid_t) -> Bool {
        if kill(pid, 0) != 0 { return errno == ESRCH }
        #if os(Linux)
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8), let close = stat.lastIndex(of: ")") else { return true }
        return stat[stat.index(after: close)...].trimmingCharacters(in: .whitespaces).hasPrefix("Z")
        #else
        return false
        #endif
    }

    @Test(
        "a hook ignoring SIGTERM is killed with its group after the grace, or at once on a second request; --force does not override",
        arguments: [1, 2])
    func escalation(requests: Int) async throws {
        let server = try FakeGitbayServer()
        let world = try await ReconcileWorld()
        let alice = try await world.registeredAlice(on: server)
        let hook = try world.installHook(Self.stubbornHook(folder: world.folder.path))
        let shutdown = ShutdownSignal()
        let stopper = Task {
            let pids = try await Self.hookPids(in: world.folder.path)
            for _ in 0..<requests { #expect(shutdown.request() != .unhandled) }
            return pids
        }
        // One request gets a short grace; two must not wait for a long one.
        let removal = world.removal(hookPath: hook, stopGrace: requests == 1 ? .milliseconds(200) : .seconds(3600), shutdown: shutdown)
        let result = try await world.remove(alice, force: true, removal: removal)
        let pids = try await stopper.value
        defer {
            kill(pids.child, SIGKILL)
            kill(pids.hook, SIGKILL)
        }
        guard case .interrupted(_, let reason) = result else {
            Issue.record("a stopped hook interrupts the removal, not \(result)")
            return
        }
        #expect(reason == "interrupted while the pre-remove hook \(hook) ran; the hook and everything it started were stopped")
        #expect(Self.isGone(pids.hook) && Self.isGone(pids.child))
        #expect(try await world.store.account(id: alice.id)?.state == .removing)
        #expect(try await world.store.apiToken(ofAccount: alice.id) != nil)
        let status = try await world.store.status(ofAccount: alice.id)
        #expect(status.lastError?.contains("interrupted") == true)
        #expect(status.detail == AccountRemoval.interruptedDetail)
    }
}
