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
