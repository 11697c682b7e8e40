import Foundation
import GitbayFake
import TestSupport
import Testing

@testable import GitbayState
@testable import GitbaySupport
@testable import GitbaySync

/// Times said from now, aligned names, and colour on a terminal only.
@Suite("Text style")
struct TextStyleTests {
    struct Distance: Sendable, CustomStringConvertible {
        let seconds: Double
        let said: String
        var description: String { "\(seconds) s: \(said)" }
    }

    static let now = Date(timeIntervalSince1970: 2_000_000_000)

    @Test(
        "an instant is said from now, and a far one (a wrong clock's) by its date",
        arguments: [
            Distance(seconds: 0.4, said: "just now"), Distance(seconds: -40, said: "40 s ago"), Distance(seconds: 300, said: "in 5 min"),
            Distance(seconds: -720, said: "12 min ago"), Distance(seconds: -7200, said: "2 h ago"),
            Distance(seconds: -86400, said: "1 day ago"), Distance(seconds: -3 * 86400 - 5, said: "3 days ago"),
            Distance(seconds: 100 * 365 * 86400, said: "on 2133-04-24"), Distance(seconds: -60 * 86400, said: "on 2033-03-19"),
        ])
    func relative(_ distance: Distance) {
        #expect(RelativeTime.said(Self.now.addingTimeInterval(distance.seconds), now: Self.now) == distance.said)
    }

    /// Two accounts whose names differ in length, one registered (the holder), one shadowed.
    static func twoAccounts() async throws -> (CLIHarness, FakeGitbayServer) {
        let server = try FakeGitbayServer()
        let cli = try CLIHarness()
        try await cli.login(server, "al")
        try await cli.login(server, "bobby")
        #expect(await cli.run(["device", "set-token"], stdin: "c0ffee00aaaabbbbccccdddd").code == 0)
        #expect(await cli.run(["run"]).code == 0)
        return (cli, server)
    }

    @Test("accounts and status pad the names to the longest, so the states start in one column")
    func aligned() async throws {
        let (cli, server) = try await Self.twoAccounts()
        let port = server.port
        for command in [["accounts"], ["status"]] {
            let out = await cli.run(command).out
            #expect(out.contains("al@127.0.0.1:\(port)     registered, device "), "\(out)")
            #expect(out.contains("bobby@127.0.0.1:\(port)  shadowed"), "\(out)")
        }
    }

    @Test("on a terminal, states and doctor's labels are coloured, after the padding; never with NO_COLOR, in --json or off a terminal")
    func colour() async throws {
        let (cli, server) = try await Self.twoAccounts()
        let port = server.port
        let terminal: (inout CLIContext) -> Void = { $0.console.outputIsTerminal = true }
        let coloured = await cli.run(["accounts"], adjust: terminal).out
        #expect(coloured.contains("al@127.0.0.1:\(port)     \u{1B}[32mregistered\u{1B}[0m, device "), "\(coloured)")
        #expect(coloured.contains("bobby@127.0.0.1:\(port)  \u{1B}[2mshadowed\u{1B}[0m"), "\(coloured)")
        let doctor = await cli.run(["doctor"], adjust: terminal).out
        #expect(doctor.contains("\u{1B}[32mOK\u{1B}[0m    "), "\(doctor)")

        for (arguments, environment, adjust) in [
            (["accounts"], ["NO_COLOR": "1"], terminal), (["accounts", "--json"], [:], terminal), (["status"], [:], { _ in }),
            (["doctor"], ["NO_COLOR": "yes"], terminal),
        ] as [([String], [String: String], (inout CLIContext) -> Void)] {
            let plain = await cli.run(arguments, extraEnvironment: environment, adjust: adjust)
            #expect(!plain.out.contains("\u{1B}"), "\(arguments) \(environment): \(plain.out)")
            #expect(!plain.out.isEmpty)
        }
        let empty = await cli.run(["accounts"], extraEnvironment: ["NO_COLOR": ""], adjust: terminal).out
        #expect(empty.contains("\u{1B}[32m"), "an empty NO_COLOR leaves colour on: \(empty)")
    }

    @Test("red is kept for what waits for the user; a failure the runs retry is yellow", arguments: AccountCondition.allCases)
    func conditionColour(_ condition: AccountCondition) {
        let painted = TextStyle(colours: true).condition(condition)
        let expected: String =
            switch condition {
            case .registered: "32"
            case _ where condition.needsAttention: "31"
            case .pending, .noDeviceToken, .error: "33"
            case .shadowed, .paused, .removing, .authFailed, .denied, .pushDisabled: "2"
            }
        #expect(painted == "\u{1B}[\(expected)m\(condition.rawValue)\u{1B}[0m")
    }

    @Test("on a terminal, status and accounts wrap to COLUMNS at spaces, indented under their line; off one, lines stay whole")
    func wrapped() async throws {
        let (cli, server) = try await Self.twoAccounts()
        // A refused token: status gives its long sign-in hint.
        server.revokeToken(try #require(server.tokens(of: "al").first?.value))
        _ = await cli.run(["run"])
        let columns = ["COLUMNS": "60"]
        // One instant for both, so that "3 s ago" reads the same in each.
        let now = Date()
        for command in [["status"], ["accounts"]] {
            let whole = await cli.run(command, extraEnvironment: columns, adjust: { $0.now = { now } }).out
            let fitted = await cli.run(command, extraEnvironment: columns) {
                $0.now = { now }
                $0.console.outputIsTerminal = true
            }.out
            let lines = fitted.split(separator: "\n").map(String.init)
            #expect(whole.split(separator: "\n").contains { $0.count > 60 }, "the test needs a long line: \(whole)")
            for line in lines where TextLayout.columns(line) > 60 {
                #expect(!line.trimmingCharacters(in: .whitespaces).contains(" "), "only a single word is wider: \(line)")
            }
            let words = { (text: String) in text.split(whereSeparator: \.isWhitespace).map { $0.replacing(/\u{1B}\[[0-9;]*m/, with: "") } }
            #expect(words(fitted) == words(whole), "the same words, in order")
            #expect(lines.filter { $0.hasPrefix("    to fix:") }.count == (command == ["status"] ? 1 : 0))
            let continued = lines.filter { !$0.hasPrefix("al@") && !$0.hasPrefix("bobby@") && $0.hasPrefix(" ") }
            #expect(command == ["accounts"] ? continued.allSatisfy { $0.hasPrefix("    ") } : true, "\(fitted)")
        }
    }

    @Test("a wrap that falls on the spaces between the name and its condition starts the next line at its indent")
    func wrapOnPadding() {
        #expect(TextLayout.fitted(["aaaaaaaaaa  bb"], width: 10) == ["aaaaaaaaaa", "    bb"])
        #expect(TextLayout.fitted(["aaaa  bb cc"], width: 4) == ["aaaa", "    bb", "    cc"])
        #expect(TextLayout.fitted(["aa  bb cc"], width: 8) == ["aa  bb", "    cc"])
    }

    @Test("a shadowed account is explained in full once, at its login, then in one line in run, status and accounts")
    func shadowedSaid() async throws {
        let server = try FakeGitbayServer()
        let cli = try CLIHarness()
        #expect(await cli.run(["device", "set-token"], stdin: "c0ffee00aaaabbbbccccdddd").code == 0)
        let al = try await cli.login(server, "al")
        let bobby = "bobby@127.0.0.1:\(server.port)"
        let login = await cli.run(["login", server.baseURL], stdin: server.mintToken(for: "bobby") + "\n")
        #expect(login.code == 0, "\(login.err)")
        #expect(login.out.contains("\(al) already holds this device's token on \(server.baseURL)"), "\(login.out)")
        #expect(login.out.contains("\(bobby) is shadowed, and this device gets no pushes for it"), "\(login.out)")
        let short = "`gitbay-sync prefer \(bobby)` moves the token to it"
        for command in [["run"], ["status"], ["accounts"]] {
            let out = await cli.run(command).out
            let line = try #require(out.split(separator: "\n").first { $0.hasPrefix(bobby) }, "\(out)")
            #expect(line.contains(short), "\(command): \(line)")
            #expect(!out.contains("gets no pushes"), "\(command): said in full once, at login: \(out)")
        }
    }

    @Test("login warns when it replaces a signed-in account's token, and when a pasted token has no name; --json says so")
    func loginWarnings() async throws {
        let server = try FakeGitbayServer()
        let cli = try CLIHarness()
        let first = await cli.run(["login", server.baseURL], stdin: server.mintToken(for: "al") + "\n")
        #expect(first.out.contains("has no name here, so signing out cannot revoke it"), "\(first.out)")
        #expect(first.out.contains("--token-name NAME"), "\(first.out)")
        #expect(!first.out.contains("replaces"), "\(first.out)")
        let again = await cli.run(["login", server.baseURL, "--token-name", "second"], stdin: server.mintToken(for: "al") + "\n")
        #expect(again.code == 0, "\(again.err)")
        #expect(again.out.contains("It was signed in already: this API token replaces the one it had"), "\(again.out)")
        #expect(!again.out.contains("has no name here"), "\(again.out)")
        let json = try await cli.run(["login", server.baseURL, "--json", "--token-name", "third"], stdin: server.mintToken(for: "al") + "\n").json()
        #expect(json["replaced_token"] as? Bool == true)
        #expect(json["shadowed"] as? Bool == false)
    }
}
