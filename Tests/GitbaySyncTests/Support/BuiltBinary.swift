import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The `gitbay-sync` executable that `swift build --build-tests` put in `.build/debug`, run as
/// a child process the way a user runs it: its own environment, piped stdin, captured output.
struct BuiltBinary: Sendable {
    struct Missing: Error, CustomStringConvertible {
        let path: String
        var description: String {
            "the gitbay-sync executable is not at \(path); build it first with `swift build --build-tests` (or `swift build --product gitbay-sync`)"
        }
    }

    let executable: String
    let environment: [String: String]
    /// Where stdout and stderr are collected.
    let scratch: String

    /// The debug build of this package, found from this file's path.
    static func located(filePath: String = #filePath) throws -> String {
        var root = URL(fileURLWithPath: filePath)
        // Tests/GitbaySyncTests/Support/BuiltBinary.swift -> the package root.
        for _ in 0..<4 { root.deleteLastPathComponent() }
        let path = root.appendingPathComponent(".build/debug/gitbay-sync").path
        guard FileManager.default.isExecutableFile(atPath: path) else { throw Missing(path: path) }
        return path
    }

    /// An environment holding only what gitbay-sync should see: the state database, the config
    /// and home folders inside `folder`, and a PATH; no GITBAY_* variable of the test's own.
    init(executable: String, folder: TemporaryDirectory) throws {
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

    var databasePath: String { environment["GITBAY_SYNC_DB"]! }

    /// Runs the binary with `arguments`, writing `stdin` (or nothing) to its standard input;
    /// kills it if it has not finished after `timeout`.
    func run(_ arguments: [String], stdin: String? = nil, timeout: Duration = .seconds(60)) async throws -> CLIResult {
        let id = UUID().uuidString
        let outPath = scratch + "/\(id).out", errPath = scratch + "/\(id).err"
        for path in [outPath, errPath] where !FileManager.default.createFile(atPath: path, contents: nil) {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: path])
        }
        let outHandle = try FileHandle(forWritingTo: URL(fileURLWithPath: outPath))
        let errHandle = try FileHandle(forWritingTo: URL(fileURLWithPath: errPath))
        let input = Pipe()

        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = environment
        process.standardInput = input
        process.standardOutput = outHandle
        process.standardError = errHandle
        let (exits, exited) = AsyncStream<Int32>.makeStream()
        process.terminationHandler = { finished in
            exited.yield(finished.terminationStatus)
            exited.finish()
        }
        try process.run()
        try outHandle.close()
        try errHandle.close()
        input.fileHandleForWriting.write(Data((stdin ?? "").utf8))
        try input.fileHandleForWriting.close()

        let pid = process.processIdentifier
        let watchdog = Task {
            try await Task.sleep(for: timeout)
            kill(pid, SIGKILL)
        }
        var code: Int32 = -1
        for await status in exits { code = status }
        watchdog.cancel()
        return CLIResult(code: code, out: Self.text(outPath), err: Self.text(errPath))
    }

    /// A file's text without its final line break, as `CLIResult` holds output.
    private static func text(_ path: String) -> String {
        var text = String(decoding: FileManager.default.contents(atPath: path) ?? Data(), as: UTF8.self)
        if text.hasSuffix("\n") { text.removeLast() }
        return text
    }
}
