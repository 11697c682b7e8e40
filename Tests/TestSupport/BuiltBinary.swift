import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The `gitbay-sync` executable that `swift build --build-tests` put in `.build/debug`, run as
/// a child process the way a user runs it: its own environment, piped stdin, captured output.
package struct BuiltBinary: Sendable {
    package struct Missing: Error, CustomStringConvertible {
        let path: String
        package var description: String {
            "the gitbay-sync executable is not at \(path); build it first with `swift build --build-tests` (or `swift build --product gitbay-sync`)"
        }
    }

    package let executable: String
    package let environment: [String: String]
    /// Where stdout and stderr are collected.
    package let scratch: String

    /// The debug build of this package, found from this file's path.
    package static func located() throws -> String {
        var root = URL(fileURLWithPath: #filePath)
        // Tests/TestSupport/BuiltBinary.swift -> the package root.
        for _ in 0..<3 { root.deleteLastPathComponent() }
        let path = root.appendingPathComponent(".build/debug/gitbay-sync").path
        guard FileManager.default.isExecutableFile(atPath: path) else { throw Missing(path: path) }
        return path
    }

    /// An environment holding only what gitbay-sync should see: the state database, the config
    /// and home folders inside `folder`, and a PATH; no GITBAY_* variable of the test's own.
    package init(executable: String, folder: TemporaryDirectory) throws {
        self.executable = executable
        scratch = folder.file("output")
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
        environment = [
            "GITBAY_SYNC_DB": folder.path + "/state/state.db",
            "XDG_CONFIG_HOME": folder.path + "/config",
            "HOME": folder.path + "/home",
            "PATH": "/usr/bin:/bin",
            "LANG": "C.UTF-8",
        ]
    }

    /// The located debug build in `folder`'s private environment, with exactly `extra` added.
    package static func located(in folder: TemporaryDirectory, adding extra: [String: String] = [:]) throws -> BuiltBinary {
        let plain = try BuiltBinary(executable: try located(), folder: folder)
        return try BuiltBinary(executable: plain.executable, environment: plain.environment.merging(extra) { $1 }, folder: folder)
    }

    /// Runs `executable` with exactly `environment`, collecting output in `folder`.
    package init(executable: String, environment: [String: String], folder: TemporaryDirectory) throws {
        self.executable = executable
        scratch = folder.file("output")
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
        self.environment = environment
    }

    package var databasePath: String { environment["GITBAY_SYNC_DB"]! }

    /// Runs the binary with `arguments`, writing `stdin` (or nothing) to its standard input;
    /// kills it if it has not finished after `timeout`.
    /// `launcher` runs first, as for `start`.
    package func run(_ arguments: [String], stdin: String? = nil, timeout: Duration = .seconds(60), launcher: [String] = []) async throws
        -> CLIResult
    {
        let finished = try await start(arguments, stdin: stdin, launcher: launcher).finish(timeout: timeout)
        return CLIResult(code: finished.status, out: finished.out, err: finished.err)
    }

    /// Starts the binary with `arguments` and leaves it running. Its standard streams are the
    /// `terminal` descriptor when one is given (a pseudo-terminal's follower side); otherwise
    /// stdin is a pipe holding `stdin` and the output goes to files. `launcher` runs first,
    /// given the binary and its arguments (e.g. a shell that sets a limit and `exec`s it).
    package func start(_ arguments: [String], stdin: String? = nil, terminal: Int32? = nil, launcher: [String] = []) throws -> RunningBinary {
        let id = UUID().uuidString
        let outPath = scratch + "/\(id).out", errPath = scratch + "/\(id).err"
        let child = try ChildProcess.start(
            launcher.first ?? executable, launcher.dropFirst() + (launcher.isEmpty ? [] : [executable]) + arguments,
            environment: environment, stdin: stdin, outPath: outPath, errPath: errPath, terminal: terminal)
        let (exits, exited) = AsyncStream<RunningBinary.Ending>.makeStream()
        ChildProcess.onExit(child.pid) { ending in
            exited.yield(.init(bySignal: ending.bySignal, status: ending.status))
            exited.finish()
        }
        return RunningBinary(pid: child.pid, exits: exits, outPath: outPath, errPath: errPath)
    }

    /// A file's text without its final line break, as `CLIResult` holds output.
    package static func text(_ path: String) -> String {
        var text = String(decoding: FileManager.default.contents(atPath: path) ?? Data(), as: UTF8.self)
        if text.hasSuffix("\n") { text.removeLast() }
        return text
    }
}

/// The built binary started by `BuiltBinary.start` and still running: signal it, then wait.
package struct RunningBinary: Sendable {
    /// How the process ended.
    package struct Ending: Sendable {
        /// True when a signal ended it; `status` is then the signal's number.
        package let bySignal: Bool
        let status: Int32
    }

    /// What the process did.
    package struct Finished: Sendable {
        package let ending: Ending
        package let out: String
        package let err: String

        /// The exit status, or the number of the signal that ended the process.
        package var status: Int32 { ending.status }
        /// The exit status; nil when a signal ended the process.
        package var code: Int32? { ending.bySignal ? nil : ending.status }
    }

    package let pid: pid_t
    package let exits: AsyncStream<Ending>
    package let outPath: String
    package let errPath: String

    /// Sends `number` to the process.
    package func send(_ number: Int32) {
        kill(pid, number)
    }

    /// Waits for the process to end, killing it if it has not after `timeout`.
    package func finish(timeout: Duration = .seconds(60)) async -> Finished {
        let watchdog = Task { [pid] in
            try await Task.sleep(for: timeout)
            kill(pid, SIGKILL)
        }
        var ending = Ending(bySignal: true, status: SIGKILL)
        for await value in exits { ending = value }
        watchdog.cancel()
        return Finished(ending: ending, out: BuiltBinary.text(outPath), err: BuiltBinary.text(errPath))
    }
}
