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

/// Under `--json` a command that fails prints `{"error": {"message", "exit_code", "kind"}}` on
/// stdout, besides `Error: …` on stderr.
@Suite("--json errors")
struct JSONErrorTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let arguments: [String]
        let code: ExitCode
        let kind: String
        let message: String

        var testDescription: String { arguments.joined(separator: " ") }
    }

    static let cases: [Case] = [
        Case(arguments: ["stauts", "--json"], code: .usage, kind: "usage", message: "unknown command 'stauts'. Did you mean 'status'?"),
        Case(arguments: ["--json", "run", "--every", "5x"], code: .usage, kind: "usage", message: "invalid value for --every"),
        Case(arguments: ["accounts", "--json=yes", "--json"], code: .usage, kind: "usage", message: "option '--json' takes no value"),
        Case(arguments: ["status", "--json"], code: .noDatabase, kind: "no-database", message: "no state database at"),
        Case(arguments: ["login", "ftp://gitbay.test", "--json"], code: .dataError, kind: "bad-input", message: "ftp"),
    ]

    /// The one JSON object on stdout, as `{"error": {...}}`.
    static func error(_ result: CLIResult) throws -> [String: Any] {
        #expect(result.out.split(separator: "\n").count == 1, "one line on stdout: \(result.out)")
        let json = try result.json()
        #expect(json.keys.sorted() == ["error"])
        let error = try #require(json["error"] as? [String: Any])
        #expect(Array(error.keys).sorted() == ["exit_code", "kind", "message"])
        return error
    }

    @Test("a failure under --json prints the error object on stdout and Error on stderr", arguments: cases)
    func shape(_ test: Case) async throws {
        let cli = try CLIHarness()
        let result = await cli.run(test.arguments, stdin: "gb_0123456789")
        #expect(result.code == test.code.rawValue)
        let error = try Self.error(result)
        #expect(error["exit_code"] as? Int == Int(test.code.rawValue))
        #expect(error["kind"] as? String == test.kind)
        let message = try #require(error["message"] as? String)
        #expect(message.contains(test.message), "\(message)")
        #expect(result.err.hasPrefix("Error: "))
    }

    @Test("keys come in the documented order")
    func order() async throws {
        let cli = try CLIHarness()
        let result = await cli.run(["frobnicate", "--json"])
        #expect(result.out == #"{"error":{"message":"unknown command 'frobnicate'","exit_code":64,"kind":"usage"}}"#)
    }

    @Test("an unknown account, and a server that cannot be reached")
    func commandFailures() async throws {
        let server = try FakeGitbayServer()
        let cli = try CLIHarness()
        let name = try await cli.login(server, "alice")
        let unknown = await cli.run(["pause", "nobody@nowhere.test", "--json"])
        #expect(unknown.code == ExitCode.noSuchAccount.rawValue)
        #expect(try Self.error(unknown)["kind"] as? String == "no-such-account")

        server.isDown = true
        let push = await cli.run(["push", "off", name, "--json"])
        #expect(push.code == ExitCode.unavailable.rawValue)
        let error = try Self.error(push)
        #expect(error["kind"] as? String == "unavailable")
        #expect((error["message"] as? String)?.hasPrefix(name) == true)
    }

    @Test("an option value that happens to read --json does not ask for JSON")
    func valueIsNotAFlag() async throws {
        let cli = try CLIHarness()
        let result = await cli.run(["device", "set-token", "--label", "--json", "extra"])
        #expect(result.code == ExitCode.usage.rawValue)
        #expect(result.out.isEmpty)
        #expect(!CommandLineParser.asksForJSON(["device", "set-token", "--label", "--json"]))
        #expect(!CommandLineParser.asksForJSON(["run", "--", "--json"]))
        #expect(CommandLineParser.asksForJSON(["--json", "nonsense"]))
    }

    @Test("without --json nothing is printed on stdout")
    func textOnly() async throws {
        let cli = try CLIHarness()
        let result = await cli.run(["status"])
        #expect(result.code == ExitCode.noDatabase.rawValue)
        #expect(result.out.isEmpty)
    }
}
