import Foundation
import Synchronization

/// The user's pre-removal hook: `$XDG_CONFIG_HOME/gitbay-sync/hooks/pre-remove`, run after the
/// built-in deregistration with the account in its environment (never the token). A non-zero
/// exit stops the removal; a hook that runs past the timeout is killed and counts as failed.
public struct PreRemovalHook: Sendable {
    public let path: String
    public let timeout: Duration

    public init(path: String, timeout: Duration = .seconds(30)) {
        self.path = path
        self.timeout = timeout
    }

    /// The hook's place: `$XDG_CONFIG_HOME`, else `~/.config`.
    public static func path(environment: [String: String]) -> String {
        let config = environment["XDG_CONFIG_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil }
            ?? (environment["HOME"] ?? NSHomeDirectory()) + "/.config"
        return config + "/gitbay-sync/hooks/pre-remove"
    }

    /// Why the hook stopped the removal.
    public struct Failure: Error, Sendable, Equatable, CustomStringConvertible {
        public let path: String
        public let status: Int32?
        public let timedOut: Bool
        public let output: String

        public var description: String {
            let what = timedOut ? "was killed after its timeout" : "exited with status \(status ?? -1)"
            let said = output.isEmpty ? "" : ": \(output)"
            return "the pre-remove hook \(path) \(what)\(said); fix the hook, or remove the account with --force"
        }
    }

    /// True when there is an executable hook to run.
    public var isInstalled: Bool { FileManager.default.isExecutableFile(atPath: path) }

    /// Runs the hook for `account`; returns normally when it succeeds or is not installed.
    public func run(for account: AccountRecord, baseEnvironment: [String: String]) async throws {
        guard isInstalled else { return }
        var environment = baseEnvironment.filter { !$0.key.hasPrefix("GITBAY_SYNC_") }
        environment["GITBAY_SYNC_ACCOUNT"] = account.name
        environment["GITBAY_SYNC_INSTANCE"] = account.instance.description
        environment["GITBAY_SYNC_USER"] = account.username

        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = []
        process.environment = environment
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        process.standardInput = FileHandle.nullDevice
        let finished = ExitSignal()
        process.terminationHandler = { _ in finished.fire() }
        try process.run()

        let timedOut = await finished.wait(timeout: timeout)
        if timedOut {
            process.terminate()
            kill(process.processIdentifier, SIGKILL)
            _ = await finished.wait(timeout: .seconds(5))
        }
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile().prefix(2000), as: UTF8.self)
            .trimmingWhitespace()
        if timedOut || process.terminationStatus != 0 {
            throw Failure(path: path, status: timedOut ? nil : process.terminationStatus, timedOut: timedOut, output: output)
        }
    }
}

/// A flag the process's termination handler sets and a task polls, with a timeout.
final class ExitSignal: Sendable {
    private let fired = Mutex(false)

    func fire() {
        fired.withLock { $0 = true }
    }

    /// Waits until fired; returns true if `timeout` passed first.
    func wait(timeout: Duration) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if fired.withLock({ $0 }) { return false }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return !fired.withLock { $0 }
    }
}
