import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A child process started with posix_spawn, watched and killed if it runs away, and its peak
/// memory measured: the stdin limit tests run the built binary this way, fed by a writer that
/// never stops.
package struct SpawnedChild: Sendable {
    package struct Failed: Error, CustomStringConvertible {
        let call: String
        let code: Int32
        package var description: String { "\(call) failed: \(String(cString: strerror(code)))" }
    }

    /// How a child ended.
    package struct Ending: Sendable {
        /// The exit status; nil when a signal ended the child.
        package let code: Int32?
        /// The signal that ended it, ours or not.
        package let signal: Int32?
        /// Why it was killed, nil when it ended on its own.
        package let killedBecause: String?
        /// Its peak resident memory in bytes, when it was started with `measuringPeak`.
        package let peakResidentBytes: Int?
        /// From the start to the reaping.
        let elapsed: Duration
    }

    package let pid: pid_t
    package let path: String
    package let started: ContinuousClock.Instant
    /// Where GNU time writes the command's peak memory (Linux).
    package let peakFile: String?
    /// Whether the peak is the child's own `ru_maxrss` (Darwin).
    package let peakFromUsage: Bool

    /// Starts `path` with `arguments` and exactly `environment`; `descriptors` gives the child's
    /// standard streams (0, 1, 2) from this process's descriptors. Every signal is set back to
    /// its default in the child, and none is blocked, whatever this process does with them: a
    /// writer dies of SIGPIPE as from a shell pipe.
    ///
    /// With `measuringPeak` (a file path), the child's peak memory is measured. On Linux a
    /// spawned child's own `ru_maxrss` starts at this process's peak, since it execs from this
    /// process's address space and the kernel keeps that space's high-water mark, so the
    /// command runs under GNU time (`/usr/bin/time`), which forks it from a small process and
    /// writes its peak to that file. Elsewhere `ru_maxrss` is the child's own.
    package static func spawn(
        _ path: String, _ arguments: [String], environment: [String: String], descriptors: [Int32: Int32],
        measuringPeak peakFile: String? = nil
    ) throws -> SpawnedChild {
        #if os(Linux)
        if let peakFile {
            let time = "/usr/bin/time"
            guard FileManager.default.isExecutableFile(atPath: time) else {
                throw Failed(call: "measuring peak memory needs GNU time at \(time) (package `time`)", code: ENOENT)
            }
            let child = try spawn(time, ["-f", "%M", "-o", peakFile, path] + arguments, environment: environment, descriptors: descriptors)
            return SpawnedChild(pid: child.pid, path: path, started: child.started, peakFile: peakFile, peakFromUsage: false)
        }
        #endif
        #if canImport(Darwin)
        var actions: posix_spawn_file_actions_t?
        var attributes: posix_spawnattr_t?
        #else
        var actions = posix_spawn_file_actions_t()
        var attributes = posix_spawnattr_t()
        #endif
        posix_spawn_file_actions_init(&actions)
        posix_spawnattr_init(&attributes)
        defer {
            posix_spawn_file_actions_destroy(&actions)
            posix_spawnattr_destroy(&attributes)
        }
        for (child, ours) in descriptors.sorted(by: { $0.key < $1.key }) {
            posix_spawn_file_actions_adddup2(&actions, ours, child)
        }
        // Nothing else of this process reaches the child: another test's pipe held open by it
        // would never see its end.
        #if os(Linux)
        guard let closeFrom = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np") else {
            throw Failed(call: "posix_spawn_file_actions_addclosefrom_np (glibc 2.34 or later)", code: ENOSYS)
        }
        typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
        _ = unsafeBitCast(closeFrom, to: CloseFrom.self)(&actions, 3)
        let flags = POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK
        #else
        let flags = POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_CLOEXEC_DEFAULT
        #endif
        // The child starts as from a shell: every signal at its default action and none blocked,
        // whatever this process (which runs the command line in-process too) does with them.
        var defaults = sigset_t()
        sigfillset(&defaults)
        sigdelset(&defaults, SIGKILL)
        sigdelset(&defaults, SIGSTOP)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setflags(&attributes, Int16(flags))

        var argv: [UnsafeMutablePointer<CChar>?] = ([path] + arguments).map { strdup($0) } + [nil]
        var envp: [UnsafeMutablePointer<CChar>?] = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, path, &actions, &attributes, &argv, &envp)
        guard result == 0 else { throw Failed(call: "posix_spawn \(path)", code: result) }
        return SpawnedChild(pid: pid, path: path, started: .now, peakFile: nil, peakFromUsage: peakFile != nil)
    }

    /// Waits for the child, checking every few milliseconds; kills it (and its children) once
    /// `deadline` has passed or (on Linux) once its resident memory or a child's passes
    /// `memoryCap` bytes, so that a child reading without end fails the test without taking
    /// the machine's memory.
    package func wait(deadline: Duration, memoryCap: Int) -> Ending {
        var killedBecause: String?
        var status: Int32 = 0
        var usage = rusage()
        while true {
            let reaped = wait4(pid, &status, WNOHANG, &usage)
            if reaped == pid { break }
            if reaped < 0 && errno != EINTR { break }
            if killedBecause == nil {
                if ContinuousClock.now - started > deadline {
                    killedBecause = "still running after \(deadline)"
                } else if let resident = ([pid] + Self.children(of: pid)).compactMap(Self.residentBytes).max(), resident > memoryCap {
                    killedBecause = "resident memory \(resident / 1_000_000) MB passed \(memoryCap / 1_000_000) MB"
                }
                if killedBecause != nil {
                    for child in Self.children(of: pid) { kill(child, SIGKILL) }
                    kill(pid, SIGKILL)
                }
            }
            usleep(2_000)
        }
        let elapsed = ContinuousClock.now - started
        var peak: Int?
        if let peakFile {
            // GNU time writes "Command exited with non-zero status N" first when it is not 0.
            let text = (try? String(contentsOfFile: peakFile, encoding: .utf8)) ?? ""
            peak = text.split(separator: "\n").last.flatMap { Int($0) }.map { $0 * 1024 }
        } else if peakFromUsage {
            peak = Int(usage.ru_maxrss)  // bytes on Darwin
        }
        let signalled = (status & 0x7f) != 0
        return Ending(
            code: signalled ? nil : (status >> 8) & 0xff, signal: signalled ? status & 0x7f : nil,
            killedBecause: killedBecause, peakResidentBytes: peak, elapsed: elapsed
        )
    }

    /// Whether the child has not ended yet; it is not reaped by asking. An ended but unreaped
    /// child (a zombie) counts as ended.
    package var isRunning: Bool { !Self.isGone(pid) }

    /// True when `pid` no longer runs. A zombie counts as gone: an orphan's zombie waits for
    /// whatever reaps orphans here, which may be slow or nothing at all.
    package static func isGone(_ pid: pid_t) -> Bool {
        if kill(pid, 0) != 0 { return errno == ESRCH }
        #if os(Linux)
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8), let close = stat.lastIndex(of: ")") else {
            return true
        }
        return stat[stat.index(after: close)...].trimmingCharacters(in: .whitespaces).hasPrefix("Z")
        #else
        return false
        #endif
    }

    /// Sends SIGKILL (if it is still running) and reaps it. Only for a child not yet reaped by
    /// `wait`: a reaped child's pid may already be another process's.
    package func stop() {
        kill(pid, SIGKILL)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    }

    /// The children of `pid`, from /proc (Linux); none elsewhere.
    private static func children(of pid: pid_t) -> [pid_t] {
        #if os(Linux)
        let text = (try? String(contentsOfFile: "/proc/\(pid)/task/\(pid)/children", encoding: .utf8)) ?? ""
        return text.split(separator: " ").compactMap { pid_t($0) }
        #else
        return []
        #endif
    }

    /// A process's resident memory now, from /proc (Linux); nil elsewhere or once it is gone.
    private static func residentBytes(_ pid: pid_t) -> Int? {
        #if os(Linux)
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
            let line = text.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
            let kilobytes = line.split(separator: " ").dropFirst().first.flatMap({ Int($0) })
        else { return nil }
        return kilobytes * 1024
        #else
        return nil
        #endif
    }
}
