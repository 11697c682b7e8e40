import Foundation
import TestSupport
import Testing

@testable import GitbayAPI
@testable import GitbayReconcile
@testable import GitbayState
@testable import GitbaySupport
@testable import GitbaySync
@testable import PushResolve

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

@Suite("A failed write to stdout or stderr")
struct OutputFailureTests {
    struct FullCase: Sendable, CustomTestStringConvertible {
        let arguments: [String]
        var testDescription: String { "gitbay-sync \(arguments.joined(separator: " ")) > /dev/full" }
    }

    @Test(
        "output to a full device exits 73 and says so on stderr", .enabled(if: FileManager.default.fileExists(atPath: "/dev/full")),
        arguments: [
            FullCase(arguments: ["status"]), FullCase(arguments: ["status", "--json"]), FullCase(arguments: ["--version"]),
            FullCase(arguments: ["accounts"]), FullCase(arguments: ["device", "show"]),
        ])
    func fullDevice(_ test: FullCase) async throws {
        let folder = try TemporaryDirectory()
        let binary = try BuiltBinary(executable: try BuiltBinary.located(), folder: folder)
        // The read-only commands need a state database to read.
        #expect(try await binary.run(["device", "set-token"], stdin: "c0ffee00c0ffee00").code == 0)
        let output = try OutputFiles(folder: folder)
        let full = open("/dev/full", O_WRONLY | O_CLOEXEC)
        try #require(full >= 0)
        let child = try SpawnedChild.spawn(
            binary.executable, test.arguments, environment: binary.environment, descriptors: [0: output.null, 1: full, 2: output.err])
        output.closeAll()
        close(full)
        let ending = child.wait(deadline: .seconds(30), memoryCap: 500_000_000)
        let err = output.text(output.errPath)
        #expect(ending.code == ExitCode.outputFailed.rawValue, "stderr: \(err)")
        #expect(err.hasPrefix("Error: could not write to standard output: "), "\(err)")
        #expect(err.hasSuffix("the command's output is incomplete."))

        // The same command with somewhere to write succeeds.
        #expect(try await binary.run(test.arguments).code == 0)
    }

    struct PrecedenceCase: Sendable, CustomTestStringConvertible {
        let arguments: [String]
        let stdin: String?
        let stream: String
        let code: ExitCode
        var testDescription: String { "\(arguments.joined(separator: " ")) with \(stream) failing -> \(code.rawValue)" }
    }

    @Test(
        "a command that did its work exits 73 when its output is lost; one that failed keeps its own code",
        arguments: [
            PrecedenceCase(arguments: ["status"], stdin: nil, stream: "standard output", code: .outputFailed),
            PrecedenceCase(arguments: ["status"], stdin: nil, stream: "standard error", code: .outputFailed),
            PrecedenceCase(arguments: ["device", "set-token"], stdin: "c0ffee00c0ffee00", stream: "standard output", code: .outputFailed),
            PrecedenceCase(arguments: ["device", "set-token"], stdin: "", stream: "standard output", code: .dataError),
            PrecedenceCase(arguments: ["status", "--no-such-option"], stdin: nil, stream: "standard error", code: .usage),
            PrecedenceCase(arguments: ["pause", "nobody@example.org"], stdin: nil, stream: "standard output", code: .noSuchAccount),
        ])
    func precedence(_ test: PrecedenceCase) async throws {
        let cli = try CLIHarness()
        _ = try await cli.store()
        let failure = OutputFailure(stream: test.stream, reason: "No space left on device (errno 28)")
        let result = await cli.run(test.arguments, stdin: test.stdin) { $0.console.outputFailure = { failure } }
        #expect(result.code == test.code.rawValue, "\(result.err)")
        #expect(
            result.err.hasSuffix("Error: could not write to \(test.stream): No space left on device (errno 28); the command's output is incomplete."))
    }

    @Test("no failed write leaves the exit code alone")
    func noFailure() async throws {
        let cli = try CLIHarness()
        _ = try await cli.store()
        let result = await cli.run(["status"])
        #expect(result.code == 0)
        #expect(!result.err.contains("could not write"))
    }
}
