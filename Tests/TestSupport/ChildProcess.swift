import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Starting, feeding and reaping child processes without Foundation's `Process`: on Linux its
/// `run()` can crash reading past a buffer while it lists `/proc/self/fd`
/// (swift-corelibs-foundation, fixed after Swift 6.3.1), and a suite that starts hundreds of
/// children meets that crash. Children start with `SpawnedChild.spawn` (posix_spawn, every
/// descriptor but the three standard ones closed).
package enum ChildProcess {
    /// How a child ended: its exit status, or the signal that ended it.
    package struct Ending: Sendable, Equatable {
        package let bySignal: Bool
        package let status: Int32

        /// The exit status; nil when a signal ended the child.
        package var code: Int32? { bySignal ? nil : status }
    }

    package struct Failed: Error, CustomStringConvertible {
        let call: String
        let code: Int32
        package var description: String { "\(call) failed: \(String(cString: strerror(code)))" }
    }

    /// `path` opened for writing, created empty (or emptied), closed on exec.
    package static func outputFile(_ path: String) throws -> Int32 {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw Failed(call: "open \(path)", code: errno) }
        return descriptor
    }

    /// `/dev/null`, for reading or writing, closed on exec.
    package static func nullDevice() throws -> Int32 {
        let descriptor = open("/dev/null", O_RDWR | O_CLOEXEC)
        guard descriptor >= 0 else { throw Failed(call: "open /dev/null", code: errno) }
        return descriptor
    }

    /// A pipe whose ends are both closed on exec.
    package static func makePipe() throws -> (read: Int32, write: Int32) {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { throw Failed(call: "pipe", code: errno) }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        return (ends[0], ends[1])
    }

    /// Writes all of `bytes` to `descriptor`, ignoring a reader that has gone.
    package static func writeAll(_ descriptor: Int32, _ bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { return }
            offset += written
        }
    }

    /// Blocks until `pid` ends and reaps it.
    package static func waitForExit(_ pid: pid_t) -> Ending {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let signal = status & 0x7f
        return signal != 0 ? Ending(bySignal: true, status: signal) : Ending(bySignal: false, status: (status >> 8) & 0xff)
    }

    /// Reaps `pid` on a thread of its own and hands its ending to `handler`.
    package static func onExit(_ pid: pid_t, _ handler: @escaping @Sendable (Ending) -> Void) {
        Thread { handler(waitForExit(pid)) }.start()
    }

    /// Runs `path` with `arguments` to the end, with nothing on stdin and stdout and stderr
    /// together in `output` (a file path); returns how it ended and what it printed.
    package static func run(
        _ path: String, _ arguments: [String], environment: [String: String], output: String
    ) throws -> (ending: Ending, output: String) {
        let null = try nullDevice()
        let out = try outputFile(output)
        defer {
            close(null)
            close(out)
        }
        let child = try SpawnedChild.spawn(path, arguments, environment: environment, descriptors: [0: null, 1: out, 2: out])
        let ending = waitForExit(child.pid)
        return (ending, String(decoding: FileManager.default.contents(atPath: output) ?? Data(), as: UTF8.self))
    }

    /// Starts `path` with `arguments` and exactly `environment`: `stdin` (or nothing) written to
    /// its standard input, its output in the files `outPath` and `errPath`; or, with
    /// `terminal`, all three streams on that descriptor (a pseudo-terminal's follower side).
    package static func start(
        _ path: String, _ arguments: [String], environment: [String: String], stdin: String?, outPath: String, errPath: String,
        terminal: Int32? = nil
    ) throws -> SpawnedChild {
        let out = try outputFile(outPath)
        defer { close(out) }
        let err = try outputFile(errPath)
        defer { close(err) }
        let input = try makePipe()
        defer { close(input.read) }
        let descriptors: [Int32: Int32] = terminal.map { [0: $0, 1: $0, 2: $0] } ?? [0: input.read, 1: out, 2: err]
        let child: SpawnedChild
        do {
            child = try SpawnedChild.spawn(path, arguments, environment: environment, descriptors: descriptors)
        } catch {
            close(input.write)
            throw error
        }
        if terminal == nil { writeAll(input.write, Array((stdin ?? "").utf8)) }
        close(input.write)
        return child
    }
}
