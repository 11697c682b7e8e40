import Dispatch
import GitbaySupport
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A program run to its end and its output read (ssh, for `login --ssh`): standard input from
/// /dev/null, standard output and error through pipes, output past `outputLimit` refused and
/// error output past `errorLimit` dropped, and the program stopped (SIGTERM, then SIGKILL a
/// second later) once `timeout` has passed or a signal ends gitbay-sync. It stays in this
/// process's group, so that it can ask on the terminal (a key's passphrase, a new host key).
/// It runs on a thread of its own, never on a cooperative one.
struct ChildProgram: Sendable {
    let path: String
    let argv: [String]
    let environment: [String: String]
    let timeout: Duration
    var outputLimit = 64 * 1024
    var errorLimit = 16 * 1024
    /// Whether a request to stop (SIGINT or SIGTERM, while the caller handles requests) stops
    /// the program too, and makes its run `interrupted`.
    var stopsOnRequest = false

    /// How the program ended and what it wrote.
    struct Ending: Sendable, Equatable {
        /// Its exit status, or 128 and the signal that ended it.
        let status: Int32
        let output: [UInt8]
        let errorOutput: [UInt8]
    }

    enum Failure: Error, Equatable {
        /// `posix_spawn` failed with this `errno`.
        case cannotStart(Int32)
        /// Still running after `timeout`: stopped. What it had written on standard output and error.
        case timedOut(output: [UInt8], errorOutput: [UInt8])
        /// More than `outputLimit` bytes on standard output: stopped.
        case outputTooLong
        /// Stopped, or ended by the same Ctrl-C, on a request to stop (`stopsOnRequest`).
        case interrupted
    }

    /// Runs the program to its end; a signal ending gitbay-sync meanwhile stops it first.
    func run(shutdown: ShutdownSignal) async -> Result<Ending, Failure> {
        let child = RunningChild()
        let stop: @Sendable () -> Void = { child.stop() }
        return await shutdown.withCleanup(onSignal: stop) {
            await withCheckedContinuation { (continuation: CheckedContinuation<Result<Ending, Failure>, Never>) in
                DispatchQueue.global().async { continuation.resume(returning: runBlocking(child, shutdown: shutdown)) }
            }
        }
    }

    private func runBlocking(_ child: RunningChild, shutdown: ShutdownSignal) -> Result<Ending, Failure> {
        var output: [Int32] = [-1, -1]
        var errors: [Int32] = [-1, -1]
        guard Self.openPipe(&output), Self.openPipe(&errors) else {
            let code = errno
            for descriptor in output + errors where descriptor >= 0 { close(descriptor) }
            return .failure(.cannotStart(code))
        }
        defer { [output[0], errors[0]].forEach { close($0) } }
        let started = child.start {
            ChildSpawn.spawn(path, argv: argv, environment: environment, output: output[1], errors: errors[1], ownGroup: false)
        }
        close(output[1])
        close(errors[1])
        if case .failure(let failure) = started { return .failure(.cannotStart(failure.code)) }
        var reader = OutputReader(output: output[0], errors: errors[0], outputLimit: outputLimit, errorLimit: errorLimit)
        let deadline = ContinuousClock.now + timeout
        while true {
            if let status = child.exitStatus() {
                reader.drain()
                if reader.outputOverflowed { return .failure(.outputTooLong) }
                if status != 0 && interrupted(shutdown, settling: true) { return .failure(.interrupted) }
                return .success(Ending(status: status, output: reader.outputBytes, errorOutput: reader.errorBytes))
            }
            if reader.outputOverflowed {
                child.stop()
                return .failure(.outputTooLong)
            }
            if interrupted(shutdown, settling: false) {
                child.stop()
                return .failure(.interrupted)
            }
            if ContinuousClock.now >= deadline {
                child.stop()
                reader.drain()
                return .failure(.timedOut(output: reader.outputBytes, errorOutput: reader.errorBytes))
            }
            reader.wait(milliseconds: 20)
        }
    }

    /// Whether a request to stop came, when the program stops on one. A program that ended
    /// with a failure is given a moment (`settling`) for the request: a Ctrl-C reaches the
    /// program and this process at once, and the program may end first.
    private func interrupted(_ shutdown: ShutdownSignal, settling: Bool) -> Bool {
        guard stopsOnRequest else { return false }
        let settled = ContinuousClock.now + (settling ? .milliseconds(200) : .zero)
        while shutdown.phase == .running && ContinuousClock.now < settled { usleep(10_000) }
        return shutdown.phase != .running
    }

    /// A pipe whose ends this process closes on exec; false (errno set) when none was made.
    private static func openPipe(_ ends: inout [Int32]) -> Bool {
        guard pipe(&ends) == 0 else { return false }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        _ = fcntl(ends[0], F_SETFL, fcntl(ends[0], F_GETFL) | O_NONBLOCK)
        return true
    }
}

/// The started program's pid, shared by the thread that waits for it and a signal's cleanup.
private final class RunningChild: Sendable {
    private struct State {
        var pid: pid_t?
        var status: Int32?
        var stopped = false
    }

    private let state = Mutex(State())

    /// Starts the program with `spawn` unless a stop came first.
    func start(_ spawn: () -> Result<pid_t, ChildSpawn.Failure>) -> Result<pid_t, ChildSpawn.Failure> {
        state.withLock { state in
            guard !state.stopped else { return .failure(ChildSpawn.Failure(code: ECANCELED)) }
            let started = spawn()
            if case .success(let pid) = started { state.pid = pid }
            return started
        }
    }

    /// The exit status (128 and the signal for a death by signal) once it has ended and been
    /// reaped; nil while it runs.
    func exitStatus() -> Int32? {
        state.withLock { state in
            if let status = state.status { return status }
            guard let pid = state.pid else { return nil }
            var status: Int32 = 0
            let result = waitpid(pid, &status, WNOHANG)
            if result == pid {
                state.status = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
            } else if result < 0 && errno == ECHILD {
                state.status = 128 + SIGKILL
            }
            return state.status
        }
    }

    /// SIGTERM, then SIGKILL when it has not ended a second later; reaps it. Blocks.
    func stop() {
        let pid = state.withLock { state -> pid_t? in
            state.stopped = true
            return state.status == nil ? state.pid : nil
        }
        guard let pid else { return }
        kill(pid, SIGTERM)
        let deadline = ContinuousClock.now + .seconds(1)
        while exitStatus() == nil {
            if ContinuousClock.now >= deadline { kill(pid, SIGKILL) }
            usleep(5_000)
        }
    }
}
