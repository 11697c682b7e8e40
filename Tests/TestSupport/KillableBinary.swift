import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The built `gitbay-sync` run synchronously with an optional SIGKILL part-way, for the crash
/// consistency tests (`BuiltBinary` runs it to completion for the end-to-end story).
package struct KillableBinary: Sendable {
    package let path: String

    /// What one child process did.
    package struct Exit: Sendable {
        /// The exit status, or nil when a signal ended the process.
        package let code: Int32?
        /// True when our SIGKILL reached a process that was still running.
        package let wasKilled: Bool
        /// The signal that ended the process when it was not ours (a crash).
        package let crashSignal: Int32?
        package let out: String
        package let err: String
    }

    /// The debug build `BuiltBinary` finds.
    package static func locate() throws -> KillableBinary {
        KillableBinary(path: try BuiltBinary.located())
    }

    /// Runs the binary with `arguments`, `stdin` on standard input and exactly `environment`;
    /// with `killAfter`, sends SIGKILL once that much time has passed if it is still running.
    package func run(
        _ arguments: [String], stdin: String? = nil, environment: [String: String], folder: String,
        killAfter: Duration? = nil
    ) throws -> Exit {
        let outPath = folder + "/child.out"
        let errPath = folder + "/child.err"
        let child = try ChildProcess.start(path, arguments, environment: environment, stdin: stdin, outPath: outPath, errPath: errPath)
        var killed = false
        if let killAfter {
            let parts = killAfter.components
            usleep(UInt32(parts.seconds * 1_000_000 + parts.attoseconds / 1_000_000_000_000))
            // Not yet reaped, so the pid is still the child's even if it has just exited.
            killed = kill(child.pid, SIGKILL) == 0
        }
        let ending = ChildProcess.waitForExit(child.pid)
        let text = { (path: String) in String(decoding: FileManager.default.contents(atPath: path) ?? Data(), as: UTF8.self) }
        return Exit(
            code: ending.code,
            wasKilled: killed && ending.bySignal && ending.status == SIGKILL,
            crashSignal: ending.bySignal && !(killed && ending.status == SIGKILL) ? ending.status : nil,
            out: text(outPath), err: text(errPath)
        )
    }
}
