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

// On macOS only the hook's process group is stopped (docs/reference.md, "Stopping the hook"):
// a child that leaves it with setsid is out of reach there.
#if os(Linux)
/// Processes the hook starts outside its process group (`setsid`, a double fork) stop with it.
@Suite("Everything a pre-remove hook starts stops with it", .timeLimit(.minutes(1)))
struct HookDescendantsTests {
    /// How the hook leaves a child behind, and how its run ends.
    struct Case: Sendable, CustomTestStringConvertible {
        enum Ending: Sendable { case timeout, stopRequest, exit }
        let name: String
        /// Shell words that start `child` (a command writing its pid to child.pid, then sleeping).
        let start: String
        let ending: Ending
        var testDescription: String { name }
    }

    static let cases = [
        Case(name: "a setsid child of a hook that hangs, at the timeout", start: "setsid CHILD &", ending: .timeout),
        Case(name: "a double-forked setsid child, orphaned at once, at the timeout", start: "(setsid CHILD &)", ending: .timeout),
        Case(name: "a setsid child of a hook that hangs, at a stop request", start: "setsid CHILD &", ending: .stopRequest),
        Case(name: "a setsid child left behind by a hook that exits 0", start: "setsid CHILD &", ending: .exit),
        // Neither the process group nor the environment finds these: only descent does.
        Case(
            name: "a double-forked child that clears its environment and starts a session, at the timeout",
            start: "(env -i setsid CHILD &)", ending: .timeout),
        Case(
            name: "a double-forked child that clears its environment and starts a session, left by a hook that exits 0",
            start: "(env -i setsid CHILD &)", ending: .exit),
        Case(
            name: "a child that clears its environment and starts a session, at a stop request", start: "env -i setsid CHILD &",
            ending: .stopRequest),
    ]

    /// The hook: starts the child, waits until it has noted its pid, notes its own, then hangs
    /// (or exits 0).
    static func hookBody(_ example: Case, folder: String) -> String {
        let child = "sh -c 'echo $$ > \"\(folder)/child.pid\"; exec sleep 300'"
        return """
            \(example.start.replacing("CHILD", with: child))
            while [ ! -s "\(folder)/child.pid" ]; do sleep 0.02; done
            echo $$ > "\(folder)/hook.pid"
            \(example.ending == .exit ? "exit 0" : "sleep 1000")
            """
    }

    @Test("the hook's child outside its process group is stopped and reaped with it", arguments: cases)
    func childStops(_ example: Case) async throws {
        let server = try FakeGitbayServer()
        let world = try await ReconcileWorld()
        let alice = try await world.registeredAlice(on: server)
        let hook = try world.installHook(Self.hookBody(example, folder: world.folder.path))
        let shutdown = ShutdownSignal()
        let stopper = Task {
            let pids = try await HookPids.wait(in: world.folder.path)
            if example.ending == .stopRequest { #expect(shutdown.request() != .unhandled) }
            return pids
        }
        let timeout: Duration = example.ending == .timeout ? .seconds(2) : .seconds(30)
        let removal = world.removal(hookPath: hook, hookTimeout: timeout, stopGrace: .milliseconds(200), shutdown: shutdown)
        let result = try await world.remove(alice, removal: removal)
        let pids = try await stopper.value
        switch (example.ending, result) {
        case (.timeout, .kept(_, .stepFailed(let reason))): #expect(reason.contains("was killed after its timeout"), "\(reason)")
        case (.stopRequest, .interrupted): break
        case (.exit, .removed): break
        default: Issue.record("unexpected result \(result)")
        }
        let hookGone = await HookPids.reaped(pids.hook)
        let childGone = await HookPids.reaped(pids.child)
        // Whatever happens, nothing of the hook outlives the test (and a pid that is gone may
        // already be another process's).
        if !childGone { kill(pids.child, SIGKILL) }
        if !hookGone { kill(pids.hook, SIGKILL) }
        #expect(hookGone, "the hook still runs")
        #expect(childGone, "the hook's setsid child \(pids.child) still runs (or is left unreaped)")
    }
}
#endif
