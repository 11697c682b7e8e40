import GitbayReconcile
import GitbayState
import GitbaySupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The user's pre-removal hook: `$XDG_CONFIG_HOME/gitbay-sync/hooks/pre-remove`, run after the
/// built-in deregistration with the account in its environment (never the token). A non-zero
/// exit stops the removal; a hook that runs past the timeout is stopped and counts as failed; a
/// hook running when gitbay-sync is asked to stop (SIGINT, SIGTERM) is stopped and the removal
/// is left to a later run. A hook that someone else could change is refused, never run, and
/// counts as failed.
///
/// Stopping the hook means SIGTERM to its whole process group and, on Linux, to everything else
/// it started (`HookDescendants`: `setsid` children, double forks), then SIGKILL to whatever is
/// left once the hook has exited or `stopGrace` has passed. When the hook exits by itself, what
/// it left running is stopped the same way.
package struct PreRemovalHook: PreRemovalStep {
    package let path: String
    /// What the hook's environment starts from (the account's variables are added).
    package let baseEnvironment: [String: String]
    package let timeout: Duration
    /// How long a stopped hook has to exit after SIGTERM before its group gets SIGKILL.
    package let stopGrace: Duration

    package static let defaultStopGrace = Duration.seconds(5)
    /// How long a hook may run before it is stopped and the removal kept for a later run.
    package static let defaultTimeout = Duration.seconds(30)

    package init(
        path: String, baseEnvironment: [String: String] = [:], timeout: Duration = Self.defaultTimeout,
        stopGrace: Duration = Self.defaultStopGrace
    ) {
        self.path = path
        self.baseEnvironment = baseEnvironment
        self.timeout = timeout
        self.stopGrace = stopGrace
    }

    /// The hook's place: `$XDG_CONFIG_HOME`, else `~/.config`.
    package static func path(environment: [String: String]) -> String {
        let config =
            environment["XDG_CONFIG_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil }
            ?? HomeFolder.path(environment: environment) + "/.config"
        return config + "/gitbay-sync/hooks/pre-remove"
    }

    /// Why the hook stopped the removal.
    package struct Failure: Error, Sendable, Equatable, CustomStringConvertible {
        package let path: String
        package let status: Int32?
        package let timedOut: Bool
        package let output: String

        package var description: String {
            let what = timedOut ? "was killed after its timeout" : "exited with status \(status ?? -1)"
            let said = output.isEmpty ? "" : ": \(output)"
            return "the pre-remove hook \(path) \(what)\(said)"
        }
    }

    /// The hook did not finish because gitbay-sync was asked to stop: it was stopped with
    /// everything it started, or it was not started at all.
    package struct Interrupted: PreRemovalInterruption, Sendable, Equatable, CustomStringConvertible {
        package let path: String
        package let started: Bool

        package var description: String {
            started
                ? "interrupted while the pre-remove hook \(path) ran; the hook and everything it started were stopped"
                : "interrupted before the pre-remove hook \(path) ran"
        }
    }

    /// True when there is an executable hook to run.
    package var isInstalled: Bool { FileManager.default.isExecutableFile(atPath: path) }

    /// Runs the hook for `account`; returns normally when it succeeds or is not installed.
    ///
    /// The hook runs in a process group of its own, with its output going to a private temporary
    /// file, so that a stop reaches everything it started and nothing it left running can hold
    /// gitbay-sync up. While it runs, a stop request from `shutdown` stops the hook (a second
    /// one skips the rest of the grace), and a signal that ends the process stops it first.
    package func run(for account: AccountRecord, shutdown: ShutdownSignal) async throws {
        guard isInstalled else { return }
        guard shutdown.phase == .running, !Task.isCancelled else { throw Interrupted(path: path, started: false) }
        if let problem = trustProblem { throw Refused(path: path, problem: problem) }
        var environment = baseEnvironment.filter { !$0.key.hasPrefix("GITBAY_SYNC_") }
        environment["GITBAY_SYNC_ACCOUNT"] = account.name
        environment["GITBAY_SYNC_INSTANCE"] = account.instance.description
        environment["GITBAY_SYNC_USER"] = account.username
        let group = HookProcessGroup()
        environment[group.marker.name] = group.marker.value

        let outputPath = FileManager.default.temporaryDirectory.path + "/gitbay-sync-hook-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let output = open(outputPath, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard output >= 0 else { throw Failure(path: path, status: nil, timedOut: false, output: "cannot create its output file") }
        unlink(outputPath)
        defer { close(output) }

        let ending = try await shutdown.handlingRequests {
            try await shutdown.withCleanup(onSignal: { [stopGrace] in group.stop(grace: stopGrace) }) {
                guard try group.start({ try spawn(environment: environment, output: output) }) else {
                    return Ending.interrupted(started: false)
                }
                return await watch(group, shutdown: shutdown)
            }
        }
        let status: Int32
        switch ending {
        case .interrupted(let started):
            throw Interrupted(path: path, started: started)
        case .timedOut:
            throw Failure(path: path, status: nil, timedOut: true, output: Self.said(output))
        case .exited(let exit):
            status = exit
        }
        let exitStatus = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        if exitStatus != 0 {
            throw Failure(path: path, status: exitStatus, timedOut: false, output: Self.said(output))
        }
    }

    /// How a started hook ended.
    private enum Ending {
        case exited(Int32)
        case timedOut
        case interrupted(started: Bool)
    }

    /// Waits for the hook to exit, stopping its group on the timeout or a stop request.
    private func watch(_ group: HookProcessGroup, shutdown: ShutdownSignal) async -> Ending {
        let deadline = ContinuousClock.now + timeout
        var rounds = 0
        while true {
            // A signal ending the process stopped the group: whatever the hook answered, the
            // removal must not go on.
            if group.stopRequested { return .interrupted(started: true) }
            if let status = group.exitStatus() {
                if group.stopRequested { return .interrupted(started: true) }
                // A hook is over when it exits: what it left running goes with it.
                await group.endLeftovers()
                return group.stopRequested ? .interrupted(started: true) : .exited(status)
            }
            if shutdown.phase >= .stopping || Task.isCancelled {
                await group.stopped(grace: stopGrace) { shutdown.phase == .cancelling }
                return .interrupted(started: true)
            }
            if ContinuousClock.now >= deadline {
                await group.stopped(grace: stopGrace) { shutdown.phase == .cancelling }
                return .timedOut
            }
            try? await Task.sleep(for: .milliseconds(20))
            rounds += 1
            // Soon after the start, then every 100 ms.
            if rounds % 5 == 1 { group.track() }
        }
    }

    /// The start of what the hook wrote, for the message of a failure.
    private static func said(_ output: Int32) -> String {
        var bytes = [UInt8](repeating: 0, count: 2000)
        let count = pread(output, &bytes, bytes.count, 0)
        return String(decoding: bytes.prefix(max(0, count)), as: UTF8.self).trimmingWhitespace()
    }

    /// Starts the hook in its own process group, stdin from /dev/null, output to `output`; on
    /// Linux below a keeper that holds everything the hook starts (`ChildSpawn.spawnKept`).
    private func spawn(environment: [String: String], output: Int32) throws -> (waited: pid_t, leader: pid_t) {
        #if os(Linux)
        let started = ChildSpawn.spawnKept(path, argv: [path], environment: environment, output: output, errors: output)
        #else
        let started = ChildSpawn.spawn(path, argv: [path], environment: environment, output: output, errors: output, ownGroup: true)
            .map { (waited: $0, leader: $0) }
        #endif
        switch started {
        case .success(let pids):
            return pids
        case .failure(let failure):
            throw Failure(path: path, status: nil, timedOut: false, output: "could not start: \(String(cString: strerror(failure.code)))")
        }
    }
}
