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
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        process.environment = environment
        let outPath = folder + "/child.out"
        let errPath = folder + "/child.err"
        _ = FileManager.default.createFile(atPath: outPath, contents: nil)
        _ = FileManager.default.createFile(atPath: errPath, contents: nil)
        let out = try FileHandle(forWritingTo: URL(fileURLWithPath: outPath))
        let err = try FileHandle(forWritingTo: URL(fileURLWithPath: errPath))
        defer {
            try? out.close()
            try? err.close()
        }
        process.standardOutput = out
        process.standardError = err
        let input = Pipe()
        process.standardInput = input
        try process.run()
        if let stdin { input.fileHandleForWriting.write(Data(stdin.utf8)) }
        try? input.fileHandleForWriting.close()
        var killed = false
        if let killAfter {
            let parts = killAfter.components
            usleep(UInt32(parts.seconds * 1_000_000 + parts.attoseconds / 1_000_000_000_000))
            if process.isRunning {
                killed = kill(process.processIdentifier, SIGKILL) == 0
            }
        }
        process.waitUntilExit()
        let signalled = process.terminationReason == .uncaughtSignal
        let text = { (path: String) in String(decoding: FileManager.default.contents(atPath: path) ?? Data(), as: UTF8.self) }
        return Exit(
            code: signalled ? nil : process.terminationStatus,
            wasKilled: killed && signalled,
            crashSignal: signalled && !(killed && process.terminationStatus == SIGKILL) ? process.terminationStatus : nil,
            out: text(outPath), err: text(errPath)
        )
    }
}
