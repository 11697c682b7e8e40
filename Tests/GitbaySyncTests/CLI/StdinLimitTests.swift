import Foundation
import GitbayFake
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

@Suite("stdin is bounded")
struct StdinLimitTests {
    /// The most memory the built binary may reach while refusing an endless stdin. A debug
    /// build refusing at once stays near 20 MB; reading the stream grows by hundreds of MB a
    /// second.
    static let memoryBound = 50_000_000

    struct EndlessCase: Sendable, CustomTestStringConvertible {
        /// The command; `SERVER` stands for the test server's URL.
        let arguments: [String]
        /// The writer and its arguments.
        let writer: [String]
        let limit: InputLimit
        var testDescription: String { "\(writer.joined(separator: " ")) | gitbay-sync \(arguments.joined(separator: " "))" }
    }

    static let endlessCases: [EndlessCase] = [
        (["login", "SERVER"], InputLimit.apiToken),
        (["device", "set-token"], InputLimit.deviceToken),
        (["resolve"], InputLimit.pushPayload),
    ].flatMap { arguments, limit in
        [["yes"], ["cat", "/dev/zero"], ["yes", String(repeating: "a", count: 300)]].map {
            EndlessCase(arguments: arguments, writer: $0, limit: limit)
        }
    }

    @Test("a writer that never stops is refused with exit 65 naming the limit, in little memory, with nothing sent", arguments: endlessCases)
    func endless(_ test: EndlessCase) async throws {
        let server = try FakeGitbayServer()
        defer { server.stop() }
        let folder = try TemporaryDirectory()
        let binary = try BuiltBinary(executable: try BuiltBinary.located(), folder: folder)
        let arguments = test.arguments.map { $0 == "SERVER" ? server.baseURL : $0 }

        let feed = try ChildPipe()
        let output = try OutputFiles(folder: folder)
        let writer = try SpawnedChild.spawn(
            try Self.tool(test.writer[0]), Array(test.writer.dropFirst()), environment: ["PATH": "/usr/bin:/bin"],
            descriptors: [0: output.null, 1: feed.writeEnd, 2: output.null]
        )
        defer { writer.stop() }
        let child = try SpawnedChild.spawn(
            binary.executable, arguments, environment: binary.environment, descriptors: [0: feed.readEnd, 1: output.out, 2: output.err],
            measuringPeak: folder.file("peak")
        )
        feed.closeBoth()
        output.closeAll()
        // A refusal takes milliseconds; the deadline only keeps a reader without end from
        // running for ever. The memory bound is what shows that reading stopped.
        let ending = child.wait(deadline: .seconds(10), memoryCap: Self.memoryBound)
        let err = output.text(output.errPath)

        #expect(ending.killedBecause == nil, "killed: \(ending.killedBecause ?? "")")
        #expect(ending.code == ExitCode.dataError.rawValue, "stderr: \(err)")
        let peak = try #require(ending.peakResidentBytes)
        #expect(peak < Self.memoryBound, "peak resident memory \(peak) bytes")
        #expect(err == "Error: " + test.limit.tooLong().message)
        #expect(err.contains("more than \(test.limit.maximumBytes) bytes on stdin"))
        #expect(output.text(output.outPath).isEmpty)
        #expect(server.requests().isEmpty)
        #expect(!FileManager.default.fileExists(atPath: binary.databasePath))
    }

    /// What a command reads on stdin, with its limit.
    enum LimitCase: String, Sendable, CaseIterable, CustomTestStringConvertible {
        case apiToken = "login's API token"
        case deviceToken = "device set-token's device token"
        case pushPayload = "resolve's push payload"

        var testDescription: String { rawValue }

        var limit: InputLimit {
            switch self {
            case .apiToken: .apiToken
            case .deviceToken: .deviceToken
            case .pushPayload: .pushPayload
            }
        }

        /// A harness ready for the command: resolve needs alice signed in.
        func harness(_ server: FakeGitbayServer) async throws -> CLIHarness {
            let cli = try CLIHarness()
            if self == .pushPayload { try await cli.login(server, "alice") }
            server.resetRequests()
            return cli
        }

        /// Input of exactly `bytes` bytes that the command takes (were it not for its size),
        /// and the command line reading it.
        func input(bytes: Int, server: FakeGitbayServer) -> (arguments: [String], text: String) {
            switch self {
            case .apiToken:
                let token = "gb_" + String(repeating: "7", count: bytes - 3)
                server.addToken(token, for: "alice")
                return (["login", server.baseURL], token)
            case .deviceToken:
                return (["device", "set-token"], String(repeating: "d", count: bytes))
            case .pushPayload:
                // A payload padded to `bytes` with a field resolve ignores.
                let head = ResolveCommandTests.payload(instance: server.baseURL, user: "alice", path: "o/r/issues/1")
                let prefix = String(head.dropLast()) + ",\"note\":\""
                let suffix = "\"}"
                return (["resolve"], prefix + String(repeating: "n", count: bytes - prefix.utf8.count - suffix.utf8.count) + suffix)
            }
        }
    }

    @Test("input of exactly the limit is taken, with a line break, a CRLF or 64 bytes of whitespace around it", arguments: LimitCase.allCases)
    func exactlyTheLimit(_ test: LimitCase) async throws {
        let server = try FakeGitbayServer()
        defer { server.stop() }
        let maximum = test.limit.maximumBytes
        for (before, after) in [("", "\n"), ("", "\r\n"), ("  \t", String(repeating: " ", count: InputLimit.surroundingWhitespace - 4) + "\n")] {
            let cli = try await test.harness(server)
            let (arguments, text) = test.input(bytes: maximum, server: server)
            #expect(text.utf8.count == maximum)
            let result = await cli.run(arguments, stdin: before + text + after)
            #expect(result.code == 0, "\(result.err)")
        }
    }

    @Test("one byte more than the limit is refused with exit 65 naming the limit, with nothing sent", arguments: LimitCase.allCases)
    func oneByteMore(_ test: LimitCase) async throws {
        let server = try FakeGitbayServer()
        defer { server.stop() }
        let cli = try await test.harness(server)
        let maximum = test.limit.maximumBytes
        let (arguments, text) = test.input(bytes: maximum + 1, server: server)
        // The device token keeps the message it always had, which names the limit too.
        let says =
            test == .deviceToken
            ? "\(maximum + 1) bytes; gitbay servers take at most \(maximum)"
            : "the \(test.limit.name) is \(maximum + 1) bytes: \(test.limit.what) is at most \(maximum) bytes"
        for stdin in [text, text + "\n"] {
            let result = await cli.run(arguments, stdin: stdin)
            #expect(result.code == ExitCode.dataError.rawValue, "\(result.err)")
            #expect(result.err.contains(says), "\(result.err)")
        }
        #expect(server.requests().isEmpty)
    }

    @Test("a limit's worth of whitespace past the bound is refused without reading on")
    func whitespacePastTheBound() async throws {
        let cli = try CLIHarness()
        let token = String(repeating: "d", count: 512)
        let result = await cli.run(["device", "set-token"], stdin: token + String(repeating: "\n", count: InputLimit.surroundingWhitespace + 1))
        #expect(result.code == ExitCode.dataError.rawValue)
        #expect(result.err.contains("more than 512 bytes on stdin (reading stopped there)"))
    }

    // MARK: The hidden prompt on a terminal

    /// Runs the built binary with a new pseudo-terminal as stdin, types `line` once the hidden
    /// prompt shows, and waits for the end.
    static func typed(_ line: String, _ arguments: [String], binary: BuiltBinary, folder: TemporaryDirectory) throws -> (
        ending: SpawnedChild.Ending, out: String, err: String
    ) {
        let terminal = try PseudoTerminal()
        defer { terminal.closeBoth() }
        let output = try OutputFiles(folder: folder)
        let child = try SpawnedChild.spawn(
            binary.executable, arguments, environment: binary.environment, descriptors: [0: terminal.follower, 1: output.out, 2: output.err]
        )
        output.closeAll()
        // The prompt shows once echo is off; what is typed before that would be discarded.
        let shown = ContinuousClock.now
        while !output.text(output.errPath).contains("(input hidden): ") && ContinuousClock.now - shown < .seconds(10) {
            usleep(5_000)
        }
        let bytes = Array((line + "\n").utf8)
        let written = bytes.withUnsafeBytes { write(terminal.controller, $0.baseAddress, $0.count) }
        #expect(written == bytes.count)
        let ending = child.wait(deadline: .seconds(10), memoryCap: Self.memoryBound)
        return (ending, output.text(output.outPath), output.text(output.errPath))
    }

    @Test("on a terminal the hidden prompt reads one bounded line: a long paste is refused, a token is taken")
    func terminal() async throws {
        let server = try FakeGitbayServer()
        defer { server.stop() }
        let folder = try TemporaryDirectory()
        let binary = try BuiltBinary(executable: try BuiltBinary.located(), folder: folder)

        let long = try Self.typed("gb_" + String(repeating: "7", count: 2000), ["login", server.baseURL], binary: binary, folder: folder)
        #expect(long.ending.code == ExitCode.dataError.rawValue, "\(long.err)")
        #expect(long.err.contains(InputLimit.apiToken.tooLong().message), "\(long.err)")
        #expect(server.requests().isEmpty)

        let token = server.mintToken(for: "alice")
        let taken = try Self.typed(token, ["login", server.baseURL], binary: binary, folder: folder)
        #expect(taken.ending.code == 0, "\(taken.err)")
        #expect(taken.out.hasPrefix("Signed in as alice@127.0.0.1:\(server.port)."))
        #expect(!taken.err.contains(token) && !taken.out.contains(token))
    }

    // MARK: The readers themselves, over a pipe

    /// A pipe holding `bytes`, its write end closed unless `keepOpen`. With the write end open,
    /// as an endless writer's would be, the read end does not block: a reader that wants the
    /// end of the stream gets all there is, and the test fails instead of hanging.
    static func pipeHolding(_ bytes: [UInt8], keepOpen: Bool = false) throws -> ChildPipe {
        let pipe = try ChildPipe()
        let written = bytes.withUnsafeBytes { write(pipe.writeEnd, $0.baseAddress, $0.count) }
        #expect(written == bytes.count)
        if keepOpen {
            _ = fcntl(pipe.readEnd, F_SETFL, fcntl(pipe.readEnd, F_GETFL) | O_NONBLOCK)
        } else {
            close(pipe.writeEnd)
        }
        return pipe
    }

    /// What is left unread in a pipe whose write end is closed.
    static func rest(_ pipe: ChildPipe) -> Int {
        StandardStreams.readAll(pipe.readEnd, limit: 1 << 20)?.count ?? -1
    }

    @Test("readAll returns up to the limit, and stops one byte past it with the rest unread")
    func readAllStops() throws {
        let exact = try Self.pipeHolding(Array(repeating: UInt8(ascii: "x"), count: 100))
        #expect(StandardStreams.readAll(exact.readEnd, limit: 100)?.count == 100)
        close(exact.readEnd)

        // 60 000 bytes fit in a pipe's buffer; the write end stays open, as an endless
        // writer's would: the reader must return without waiting for more.
        let long = try Self.pipeHolding(Array(repeating: UInt8(ascii: "y"), count: 60_000), keepOpen: true)
        #expect(StandardStreams.readAll(long.readEnd, limit: 100) == nil)
        close(long.writeEnd)
        #expect(Self.rest(long) == 60_000 - 101)
        close(long.readEnd)

        let empty = try Self.pipeHolding([])
        #expect(StandardStreams.readAll(empty.readEnd, limit: 100) == [])
        close(empty.readEnd)
    }

    @Test("readLine returns one line up to the limit, and stops one byte past it")
    func readLineStops() throws {
        let line = try Self.pipeHolding(Array("abc\ndef\n".utf8))
        #expect(StandardStreams.readLine(line.readEnd, limit: 3) == Array("abc".utf8))
        close(line.readEnd)

        let unterminated = try Self.pipeHolding(Array("abc".utf8))
        #expect(StandardStreams.readLine(unterminated.readEnd, limit: 3) == Array("abc".utf8))
        close(unterminated.readEnd)

        let long = try Self.pipeHolding(Array("abcd\n".utf8))
        #expect(StandardStreams.readLine(long.readEnd, limit: 3) == nil)
        close(long.readEnd)

        let endless = try Self.pipeHolding(Array(repeating: UInt8(ascii: "z"), count: 60_000), keepOpen: true)
        #expect(StandardStreams.readLine(endless.readEnd, limit: 100) == nil)
        close(endless.writeEnd)
        #expect(Self.rest(endless) == 60_000 - 101)
        close(endless.readEnd)
    }

    // MARK: Support

    /// The path of a command-line tool.
    static func tool(_ name: String) throws -> String {
        let found = ["/usr/bin/\(name)", "/bin/\(name)"].first { FileManager.default.isExecutableFile(atPath: $0) }
        return try #require(found, "\(name) is not installed")
    }
}
