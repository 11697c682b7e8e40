import Foundation
import GitbayFake
import ReconcileSupport
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
@Suite("Interrupting a removal while the pre-remove hook runs, through AccountRemoval", .timeLimit(.minutes(1)))
struct HookStopTests {
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
            let pids = try await HookPids.wait(in: world.folder.path)
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
        #expect(SpawnedChild.isGone(pids.hook) && SpawnedChild.isGone(pids.child))
        #expect(try await world.store.account(id: alice.id)?.state == .removing)
        #expect(try await world.store.apiToken(ofAccount: alice.id) != nil)
        let status = try await world.store.status(ofAccount: alice.id)
        #expect(status.lastError?.contains("interrupted") == true)
        #expect(status.detail == AccountRemoval.interruptedDetail)
    }
}
