import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The pids a test's pre-remove hook writes (`hook.pid` for itself, `child.pid` for a child it
/// starts), and whether they still run.
package enum HookPids {
    package struct HookDidNotStart: Error {}

    /// The pids the hook wrote in `folder`, once it has written both.
    package static func wait(in folder: String, deadline: Duration = .seconds(30)) async throws -> (hook: pid_t, child: pid_t) {
        let end = ContinuousClock.now + deadline
        while ContinuousClock.now < end {
            if let hook = pid(folder + "/hook.pid"), let child = pid(folder + "/child.pid") { return (hook, child) }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw HookDidNotStart()
    }

    private static func pid(_ path: String) -> pid_t? {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8), text.hasSuffix("\n") else { return nil }
        return pid_t(text.trimmingCharacters(in: .whitespacesAndNewlines))
    }
}

extension HookPids {
    /// Waits until `pid` is gone and reaped (no such process, not even a zombie), polling
    /// until `deadline`; true when it went. A process left as the zombie of a parent that
    /// never reaps it counts as still there.
    package static func reaped(_ pid: pid_t, within deadline: Duration = .seconds(10)) async -> Bool {
        let end = ContinuousClock.now + deadline
        while ContinuousClock.now < end {
            if kill(pid, 0) != 0 && errno == ESRCH { return true }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return kill(pid, 0) != 0 && errno == ESRCH
    }
}
