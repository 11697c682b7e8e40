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

@Suite("Bad input changes nothing")
struct BadInputTests {
    static let deviceToken = "5eed5eed0123456789abcdef"

    /// alice signed in and registered with a device token, and a snapshot of everything that
    /// bad input must leave alone.
    struct Scene {
        let server: FakeGitbayServer
        let cli: CLIHarness
        let account: String
        let accountsJSON: String
        let deviceJSON: String
        let databaseBytes: Data?
        let rows: [FakeDevice]

        static func make() async throws -> Scene {
            let server = try FakeGitbayServer()
            let cli = try CLIHarness()
            let account = try await cli.login(server, "alice")
            #expect(await cli.run(["device", "set-token", "--label", "laptop"], stdin: BadInputTests.deviceToken).code == 0)
            #expect(await cli.run(["run"]).code == 0)
            let accounts = await cli.run(["accounts", "--json"])
            let device = await cli.run(["device", "show", "--json"])
            server.resetRequests()
            return Scene(
                server: server, cli: cli, account: account, accountsJSON: accounts.out, deviceJSON: device.out,
                databaseBytes: fileBytes(cli.databasePath), rows: server.devices()
            )
        }

        /// Runs a command that must fail with `code` and a one-line error containing every
        /// piece of `says`, then checks that nothing was stored or changed.
        @discardableResult
        func refuses(
            _ arguments: [String], stdin: String? = nil, code: ExitCode, says: [String], usage: Bool = false,
            serverWrites: Bool = false, sourceLocation: SourceLocation = #_sourceLocation
        ) async -> CLIResult {
            let result = await cli.run(arguments, stdin: stdin)
            #expect(result.code == code.rawValue, "\(result.err)", sourceLocation: sourceLocation)
            #expect(result.out.isEmpty, "stdout: \(result.out)", sourceLocation: sourceLocation)
            let lines = result.err.split(separator: "\n").map(String.init)
            // A usage error: the error, the usage line (wrapped to 80 columns: its continuations
            // are indented) and where the help is.
            let shape =
                usage
                ? lines.count >= 3 && lines[1].hasPrefix("Usage: ") && lines.dropFirst(2).dropLast().allSatisfy { $0.hasPrefix("    ") }
                    && lines.last?.hasPrefix("See 'gitbay-sync ") == true
                : lines.count == 1
            #expect(shape, "stderr: \(result.err)", sourceLocation: sourceLocation)
            #expect(lines.first?.hasPrefix("Error: ") == true, sourceLocation: sourceLocation)
            for piece in says {
                #expect(result.err.contains(piece), "\(result.err) does not say \(piece)", sourceLocation: sourceLocation)
            }
            await unchanged(serverWrites: serverWrites, sourceLocation: sourceLocation)
            return result
        }

        func unchanged(serverWrites: Bool = false, sourceLocation: SourceLocation = #_sourceLocation) async {
            #expect(fileBytes(cli.databasePath) == databaseBytes, "the database file changed", sourceLocation: sourceLocation)
            #expect(server.devices() == rows, sourceLocation: sourceLocation)
            if !serverWrites {
                #expect(server.requests().filter(\.isWrite).isEmpty, sourceLocation: sourceLocation)
            }
            #expect(await cli.run(["accounts", "--json"]).out == accountsJSON, sourceLocation: sourceLocation)
            #expect(await cli.run(["device", "show", "--json"]).out == deviceJSON, sourceLocation: sourceLocation)
        }
    }

    struct URLCase: Sendable, CustomTestStringConvertible {
        let url: String
        let says: String
        let fix: String
        var testDescription: String { url }
    }

    @Test(
        "login refuses a malformed instance URL before reading a token or calling anything",
        arguments: [
            URLCase(url: "://gitbay.org", says: "is not an http(s) URL", fix: "give the instance's address, e.g. https://gitbay.org"),
            URLCase(url: "ftp://x", says: "is not an http(s) URL", fix: "give the instance's address, e.g. https://gitbay.org"),
            URLCase(url: "https://", says: "is not a URL", fix: "give the instance's address, e.g. https://gitbay.org"),
            URLCase(url: "https://host/path", says: "has a path, query or credentials", fix: "give only the instance's address"),
            URLCase(url: "https://user@host", says: "has a path, query or credentials", fix: "give only the instance's address"),
            URLCase(url: "https://host:99999", says: "is not a URL", fix: "give the instance's address, e.g. https://gitbay.org"),
            URLCase(url: "http://gitbay.example", says: "uses plain http to a host that is not this machine", fix: "use https://"),
            URLCase(url: "http://10.0.0.1:3000", says: "uses plain http to a host that is not this machine", fix: "use https://"),
        ])
    func malformedURL(_ test: URLCase) async throws {
        let scene = try await Scene.make()
        let token = scene.server.mintToken(for: "bob")
        await scene.refuses(["login", test.url], stdin: token, code: .dataError, says: ["'\(test.url)' \(test.says)", test.fix])
        #expect(scene.server.requests().isEmpty)
    }

    @Test("a bare host given to login means https:// on it: a loopback port with nothing on it is tried over https and cannot be reached")
    func bareHostMeansHTTPS() async throws {
        #expect(CommandRunner.withScheme("gitbay.example.com") == "https://gitbay.example.com")
        #expect(CommandRunner.withScheme(" gitbay.example.com:8443 ") == "https://gitbay.example.com:8443")
        #expect(CommandRunner.withScheme("http://127.0.0.1:3000") == "http://127.0.0.1:3000")
        let closed = try ClosedPort()
        let cli = try CLIHarness()
        let result = await cli.run(["login", "127.0.0.1:\(closed.port)"], stdin: "gb_" + String(repeating: "1", count: 40))
        #expect(result.code == ExitCode.unavailable.rawValue, "\(result.err)")
        #expect(result.err.contains("https://127.0.0.1:\(closed.port)"), "\(result.err)")
        #expect(!result.err.contains("is not a URL"))
    }

    @Test("login refuses a token the server rejects (401), storing nothing")
    func rejectedToken() async throws {
        let scene = try await Scene.make()
        let result = await scene.refuses(
            ["login", scene.server.baseURL], stdin: "gb_" + String(repeating: "0", count: 40), code: .denied,
            says: ["refused the API token", "nothing was stored", "token create --name gitbay-sync --scope full"]
        )
        #expect(!result.err.contains("gb_000"))
    }

    @Test("login refuses a read-only token: the scope probe is denied, nothing is stored")
    func readOnlyToken() async throws {
        let scene = try await Scene.make()
        let token = scene.server.mintToken(for: "bob", scope: .read)
        await scene.refuses(
            ["login", scene.server.baseURL], stdin: token, code: .denied,
            says: ["read-only", "full-scope", "nothing was stored", "--scope full"], serverWrites: true
        )
        let writes = scene.server.requests().filter(\.isWrite)
        // An add with no token: refused before it runs, and no "refused" entry in the audit log.
        #expect(writes.map { $0.argv.filter { $0 != "--json" } } == [["notifications", "device", "add"]])
        #expect(writes.allSatisfy { $0.stdin == nil })
        #expect(writes.allSatisfy { $0.status != 200 })
    }

    @Test("login refuses an instance whose API does not answer JSON")
    func notAnAPI() async throws {
        let scene = try await Scene.make()
        let token = scene.server.mintToken(for: "bob")
        scene.server.apiEnabled = false
        await scene.refuses(
            ["login", scene.server.baseURL], stdin: token, code: .unavailable,
            says: ["did not answer as a gitbay API", "[api] enabled", "nothing was stored"])
    }

    @Test("login refuses an empty token or one with spaces", arguments: [nil, "", "  \n", "gb_abc def"])
    func emptyAPIToken(_ stdin: String?) async throws {
        let scene = try await Scene.make()
        let says = (stdin ?? "").contains("def") ? ["contains spaces"] : ["no API token on stdin", "printf"]
        await scene.refuses(["login", scene.server.baseURL], stdin: stdin, code: .dataError, says: says)
        #expect(scene.server.requests().isEmpty)
    }

    @Test(
        "login refuses an API token with a control character, a character outside printable ASCII or over 1 KiB, before any request",
        arguments: [
            TokenCase(name: "a NUL inside", token: "gb_abc\u{0}def", says: "contains a control character"),
            TokenCase(name: "a NUL at the end", token: "gb_abcdef\u{0}\n", says: "contains a control character"),
            TokenCase(name: "a control character first", token: "\u{1}gb_abcdef", says: "contains a control character"),
            TokenCase(name: "an escape sequence inside", token: "gb_\u{1B}[31mabc", says: "contains a control character"),
            TokenCase(name: "a DEL", token: "gb_abc\u{7F}def", says: "contains a control character"),
            TokenCase(name: "a letter outside ASCII", token: "gb_abcdéf", says: "contains characters outside printable ASCII"),
            TokenCase(
                name: "1025 bytes", token: "gb_" + String(repeating: "0", count: 1022),
                says: "the API token is 1025 bytes: an API token is at most 1024 bytes (1 KiB)"),
        ])
    func badAPIToken(_ test: TokenCase) async throws {
        let scene = try await Scene.make()
        let result = await scene.refuses(
            ["login", scene.server.baseURL], stdin: test.token, code: .dataError, says: [test.says, "paste the token alone"])
        #expect(scene.server.requests().isEmpty)
        #expect(!result.err.contains("gb_abc"))
    }

    struct AccountCase: Sendable, CustomTestStringConvertible {
        let arguments: [String]
        var testDescription: String { arguments.joined(separator: " ") }
    }

    @Test(
        "a misspelled account is named with the signed-in ones and a suggestion, exit 67",
        arguments: [
            AccountCase(arguments: ["remove-account"]), AccountCase(arguments: ["pause"]), AccountCase(arguments: ["resume"]),
            AccountCase(arguments: ["prefer"]), AccountCase(arguments: ["devices"]), AccountCase(arguments: ["push", "on"]),
            AccountCase(arguments: ["push", "show"]),
        ])
    func unknownAccount(_ test: AccountCase) async throws {
        let scene = try await Scene.make()
        let typo = scene.account.replacingOccurrences(of: "alice", with: "alcie")
        await scene.refuses(
            test.arguments + [typo], code: .noSuchAccount,
            says: ["no account '\(typo)'", "signed in: \(scene.account)", "Did you mean '\(scene.account)'?"]
        )
        #expect(scene.server.requests().isEmpty)
    }

    @Test("devices remove with an unknown account changes nothing")
    func unknownAccountDeviceRemoval() async throws {
        let scene = try await Scene.make()
        let id = try #require(scene.rows.first?.id)
        await scene.refuses(
            ["devices", "remove", "nobody@example.org", String(id), "--yes"], code: .noSuchAccount,
            says: ["no account 'nobody@example.org'", "signed in: \(scene.account)"])
    }

    struct TokenCase: Sendable, CustomTestStringConvertible {
        let name: String
        let token: String?
        let says: String
        var testDescription: String { name }
    }

    @Test(
        "device set-token refuses a bad token and keeps the old one",
        arguments: [
            TokenCase(name: "nothing on stdin", token: nil, says: "no device token on stdin"),
            TokenCase(name: "empty", token: "", says: "no device token on stdin"),
            TokenCase(name: "blank lines", token: " \n\n", says: "no device token on stdin"),
            TokenCase(name: "513 bytes", token: String(repeating: "a", count: 513), says: "513 bytes; gitbay servers take at most 512"),
            TokenCase(name: "257 two-byte characters", token: String(repeating: "é", count: 257), says: "outside printable ASCII"),
            TokenCase(name: "a character a server would show cut in two", token: "abcdef€xyz0123", says: "outside printable ASCII"),
            TokenCase(name: "a space inside", token: "abcd efgh", says: "contains whitespace"),
            TokenCase(name: "a tab inside", token: "abcd\tefgh", says: "contains whitespace"),
            TokenCase(name: "two lines", token: "abcd\nefgh\n", says: "contains whitespace"),
            TokenCase(name: "an escape sequence inside", token: "abcd\u{1B}[31mefgh", says: "control characters"),
            TokenCase(name: "a NUL inside", token: "abcd\u{0}efgh", says: "control characters"),
        ])
    func badDeviceToken(_ test: TokenCase) async throws {
        let scene = try await Scene.make()
        await scene.refuses(["device", "set-token"], stdin: test.token, code: .dataError, says: [test.says])
    }

    @Test("a 512-byte device token is taken")
    func longestDeviceToken() async throws {
        let cli = try CLIHarness()
        let token = String(repeating: "b", count: 512)
        #expect(await cli.run(["device", "set-token"], stdin: token + "\n").code == 0)
        let device = try await cli.store().device()
        #expect(device.token?.prefix() == "bbbbbbbb")
    }

    @Test(
        "device set-token refuses a bad --label and keeps the device",
        arguments: [
            "", "   ", "laptop [gbs-1234]", "two\nlines", String(repeating: "x", count: 101), "tab\there", "bell\u{7}",
        ])
    func badLabel(_ label: String) async throws {
        let scene = try await Scene.make()
        await scene.refuses(
            ["device", "set-token", "--label", label], stdin: "feedf00d99998888", code: .dataError, says: ["--label must be 1 to 100 characters"])
    }

    @Test("run refuses a non-numeric --concurrency before touching anything")
    func badConcurrency() async throws {
        let scene = try await Scene.make()
        await scene.refuses(
            ["run", "--concurrency", "many"], code: .usage, says: ["invalid value for --concurrency: 'many'", "Usage: gitbay-sync run"], usage: true)
        #expect(scene.server.requests().isEmpty)
    }

    @Test(
        "a file that is not a state database is refused with exit 74 and left as it was",
        arguments: [
            ["status"], ["accounts"], ["run"], ["device", "show"], ["doctor"],
        ])
    func corruptDatabase(_ arguments: [String]) async throws {
        let cli = try CLIHarness()
        let path = cli.folder.file("junk.db")
        let junk = Data((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ 7) })
        try junk.write(to: URL(fileURLWithPath: path))
        let result = await cli.run(arguments + ["--db", path])
        if arguments == ["doctor"] {
            // doctor reports the database as a failed check on stdout, like every other check.
            #expect(result.code == ExitCode.partialFailure.rawValue)
            #expect(result.out.hasPrefix("database: \(path)\nFAIL  database: "), "\(result.out)")
            #expect(result.out.contains("is not a gitbay-sync state database"))
        } else {
            #expect(result.out.isEmpty, "\(result.out)")
            #expect(result.code == ExitCode.stateError.rawValue, "\(result.err)")
            #expect(result.err.split(separator: "\n").count == 1)
            #expect(result.err.hasPrefix("Error: \(path) is not a gitbay-sync state database"))
            #expect(result.err.contains("move it aside, or pass another --db"))
        }
        #expect(fileBytes(path) == junk)
        #expect(!FileManager.default.fileExists(atPath: path + "-wal"))
    }

    @Test("login onto a corrupt database stores nothing and calls no server")
    func corruptDatabaseLogin() async throws {
        let server = try FakeGitbayServer()
        let cli = try CLIHarness()
        let path = cli.folder.file("junk.db")
        let junk = Data(repeating: 0xA5, count: 2048)
        try junk.write(to: URL(fileURLWithPath: path))
        let result = await cli.run(["login", server.baseURL, "--db", path], stdin: server.mintToken(for: "alice"))
        #expect(result.code == ExitCode.stateError.rawValue, "\(result.err)")
        #expect(fileBytes(path) == junk)
        #expect(server.requests().isEmpty)
    }

}
