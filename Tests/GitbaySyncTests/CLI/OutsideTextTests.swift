import Foundation
import GitbayFake
import TestSupport
import Testing

@testable import GitbayAPI
@testable import GitbayKeyring
@testable import GitbayReconcile
@testable import GitbayState
@testable import GitbaySupport
@testable import GitbaySync
@testable import PushResolve

/// Text from a server or a push payload that would set the window title, clear the screen and
/// start a line of its own is shown escaped in text output, and as it is in `--json`.
@Suite("outside text in text output")
struct OutsideTextTests {
    static let hostile = "evil\u{1B}]0;title\u{07}\u{1B}[2J\nline"
    static let shown = #"evil\u{1B}]0;title\u{07}\u{1B}[2J\nline"#
    /// A server's error message as an error shows it: its lines joined with a space.
    static let shownMessage = #"evil\u{1B}]0;title\u{07}\u{1B}[2J line"#
    static let phoneToken = "aa11bb22eeeeffff00001111"

    /// No scalar a terminal would act on: ESC, BEL, CSI, a bidi override.
    static func isInert(_ text: String) -> Bool {
        !text.unicodeScalars.contains { ["\u{1B}", "\u{07}", "\u{9B}", "\u{202E}"].contains($0) }
    }

    /// True when one printed line holds all of `shown`: no raw line break inside it.
    static func oneLine(_ text: String, holds shown: String) -> Bool {
        text.split(separator: "\n").contains { $0.contains(shown) }
    }

    /// An error answer whose message is `hostile`, JSON-escaped as a server sends it.
    static func failureBody() throws -> String {
        let body = try JSONSerialization.data(withJSONObject: ["protocol_version": 1, "exit_code": 1, "error": hostile])
        return String(decoding: body, as: UTF8.self)
    }

    static func signedIn() async throws -> (FakeGitbayServer, CLIHarness, String) {
        let server = try FakeGitbayServer()
        let cli = try CLIHarness()
        let account = try await cli.login(server, "alice")
        return (server, cli, account)
    }

    @Test("devices shows a label escaped on its row; --json keeps it as the server sent it")
    func devicesLabel() async throws {
        let (server, cli, account) = try await Self.signedIn()
        server.insertDevice(owner: "alice", token: Self.phoneToken, label: Self.hostile)

        let text = await cli.run(["devices"])
        #expect(text.code == 0, "\(text.err)")
        #expect(Self.isInert(text.out + text.err))
        #expect(Self.oneLine(text.out, holds: Self.shown + "  aa11bb22…  added "))
        #expect(text.out.split(separator: "\n").count == 2)

        let json = await cli.run(["devices", account, "--json"])
        let accounts = try #require(try json.json()["accounts"] as? [[String: Any]])
        let rows = try #require(accounts.first?["devices"] as? [[String: Any]])
        #expect(rows.first?["label"] as? String == Self.hostile)
    }

    @Test("devices remove asks and reports with the label escaped; --json keeps it")
    func removeLabel() async throws {
        let (server, cli, account) = try await Self.signedIn()
        let id = server.insertDevice(owner: "alice", token: Self.phoneToken, label: Self.hostile)

        let declined = await cli.run(["devices", "remove", account, String(id)], terminal: true, confirm: false)
        #expect(declined.code == ExitCode.partialFailure.rawValue)
        let question = try #require(declined.questions.first)
        #expect(declined.questions.count == 1)
        #expect(question == "Remove device \(id) \"\(Self.shown)\" (aa11bb22…) from \(account)?")
        #expect(Self.isInert(declined.out + declined.err))
        #expect(server.devices(of: "alice").map(\.id) == [id])

        let removed = await cli.run(["devices", "remove", account, String(id)], terminal: true, confirm: true)
        #expect(removed.code == 0, "\(removed.err)")
        #expect(removed.questions == [question])
        #expect(removed.out == "Removed device \(id) \"\(Self.shown)\" (aa11bb22…) from \(account).")
        #expect(Self.isInert(removed.out + removed.err))
        #expect(server.devices(of: "alice").isEmpty)

        let again = server.insertDevice(owner: "alice", token: Self.phoneToken, label: Self.hostile)
        let json = await cli.run(["devices", "remove", account, String(again), "--yes", "--json"])
        #expect(json.code == 0, "\(json.err)")
        #expect(try json.json()["label"] as? String == Self.hostile)
    }

    @Test("a server's error message is escaped in every command's error; --json keeps it")
    func serverMessage() async throws {
        let (server, cli, account) = try await Self.signedIn()
        // With a device token `run` lists the account's rows.
        #expect(await cli.run(["device", "set-token"], stdin: Self.phoneToken).code == 0)
        let fault = FakeFault.status(500, body: try Self.failureBody())

        // Through the command's own error lines, and through the top-level reporter.
        let commands: [(arguments: [String], command: String)] = [
            (["devices"], "notifications device list"),
            (["push", "show"], "notifications settings show"),
            (["push", "on", account], "notifications settings push"),
            (["devices", "remove", account, "1", "--yes"], "notifications device list"),
            (["run"], "notifications device list"),
        ]
        for (arguments, command) in commands {
            server.inject(fault, command: command)
            let result = await cli.run(arguments)
            #expect(result.code != 0, "\(arguments)")
            #expect(Self.isInert(result.out + result.err), "\(arguments)")
            #expect(Self.oneLine(result.err, holds: "Error: \(account): `\(command)` failed"), "\(arguments)")
            #expect(Self.oneLine(result.err, holds: Self.shownMessage), "\(arguments)")
        }

        // `run` recorded it as the last error, which `status` shows.
        let status = await cli.run(["status"])
        #expect(Self.isInert(status.out))
        #expect(Self.oneLine(status.out, holds: "last error: \(account): `notifications device list` failed"))
        #expect(Self.oneLine(status.out, holds: Self.shownMessage))

        server.inject(fault, command: "notifications settings show")
        let doctor = await cli.run(["doctor"])
        #expect(doctor.code == ExitCode.partialFailure.rawValue)
        #expect(Self.isInert(doctor.out + doctor.err))
        #expect(Self.oneLine(doctor.out, holds: "FAIL  account.push  \(account): settings cannot be read: "))
        #expect(Self.oneLine(doctor.out, holds: Self.shownMessage))

        server.inject(fault, command: "notifications device list")
        let json = await cli.run(["devices", "--json"])
        let accounts = try #require(try json.json()["accounts"] as? [[String: Any]])
        let error = try #require(accounts.first?["error"] as? String)
        #expect(error.contains("evil\u{1B}]0;title\u{07}\u{1B}[2J line"))
    }

    static func payload(instance: String, user: String, path: String) throws -> String {
        let body = try JSONSerialization.data(withJSONObject: ["instance": instance, "user": user, "path": path, "aps": ["badge": 2]])
        return String(decoding: body, as: UTF8.self)
    }

    @Test("resolve shows a payload's path and user escaped; --json keeps the path")
    func resolvePayload() async throws {
        let (server, cli, account) = try await Self.signedIn()
        let payload = try Self.payload(instance: server.baseURL, user: "alice", path: Self.hostile)

        let text = await cli.run(["resolve"], stdin: payload)
        #expect(text.code == 0, "\(text.err)")
        #expect(Self.isInert(text.out + text.err))
        #expect(
            text.out.split(separator: "\n").map(String.init) == [
                "account: \(account)", "destination: none (the app has no screen for the path '\(Self.shown)')", "badge: 2",
            ])

        let json = await cli.run(["resolve", "--json"], stdin: payload)
        #expect(try json.json()["path"] as? String == Self.hostile)

        let stranger = await cli.run(["resolve"], stdin: try Self.payload(instance: server.baseURL, user: Self.hostile, path: "o/r/issues/1"))
        #expect(stranger.code == ExitCode.noSuchAccount.rawValue)
        #expect(Self.isInert(stranger.err))
        #expect(Self.oneLine(stranger.err, holds: "the push is for \(Self.shown)@127.0.0.1:\(server.port), which is not signed in here"))
    }

    @Test("what the keyring says (a Secret Service's error text) reaches login's and run's words escaped, on one line, bounded")
    func keyringTextEscaped() throws {
        let said = KeyringUnavailable.said(Self.hostile + "\u{202E}" + String(repeating: "x", count: 1_000))
        #expect(said.count <= 301 && !said.contains("\n"), "one line, bounded: \(said.count)")
        let reason = KeyringUnavailable.failed(detail: said)
        let instance = try InstanceURL(parsing: "https://gitbay.example")

        let login = KeyringText.kept(KeptToken(place: .database, keyringUnavailable: reason), choice: nil)
        var skipped = AccountOutcome(
            accountID: 1, account: "alice@gitbay.example", instance: instance, action: .skipped, condition: .registered,
            skipReason: .keyringUnavailable(reason))
        skipped.tokenMove = .waiting(reason)
        // As run words an entry: the skip's reason, then what became of the token's move.
        let run = RemovalText.renewal(SkipReasonText.worded(SaidOutcome(skipped), now: Date()))
        let texts = [login, OutcomeText.line(run, width: 20)]

        for text in texts {
            #expect(Self.isInert(text), "\(text)")
            #expect(text.contains(#"evil\u{1B}]0;title\u{07}\u{1B}[2J"#), "escaped once: \(text)")
            #expect(!text.contains(#"\\u{1B}"#), "not twice: \(text)")
        }
    }

    @Test("an account name stored by an older version is escaped wherever it is printed")
    func storedName() async throws {
        let server = try FakeGitbayServer()
        let cli = try CLIHarness()
        _ = try await cli.login(server, "alice")
        let apiToken = server.mintToken(for: Self.hostile)
        let instance = try InstanceURL(parsing: server.baseURL)
        try await cli.store().signIn(instance: instance, username: Self.hostile, apiToken: Secret(apiToken))
        let name = "\(Self.shown)@127.0.0.1:\(server.port)"
        #expect(await cli.run(["device", "set-token"], stdin: Self.phoneToken).code == 0)

        for arguments in [["run"], ["accounts"], ["status"], ["devices"], ["push", "show"], ["doctor"], ["run", "-v"]] {
            let result = await cli.run(arguments)
            #expect(Self.isInert(result.out + result.err), "\(arguments)")
            #expect(Self.oneLine(result.out + "\n" + result.err, holds: name), "\(arguments)")
        }
    }

    @Test("a name stored by an older version is one quoted word in every command printed for copying")
    func printedCommandsQuoteNames() async throws {
        let server = try FakeGitbayServer()
        let cli = try CLIHarness()
        _ = try await cli.login(server, "alice")
        let user = "$(touch${IFS}PWNED)"
        let instance = try InstanceURL(parsing: server.baseURL)
        try await cli.store().signIn(instance: instance, username: user, apiToken: Secret(server.mintToken(for: user)))
        let name = "\(user)@127.0.0.1:\(server.port)"
        var printed: [String] = []
        for arguments in [["pause", name], ["status"], ["doctor"], ["accounts"]] {
            let result = await cli.run(arguments)
            // Every `gitbay-sync …` span the user could paste.
            printed += (result.out + result.err).split(separator: "`").map(String.init).filter {
                $0.hasPrefix("gitbay-sync ") && $0.contains("PWNED")
            }
        }
        // Such a name is refused (`StoredNameTests`): the fix is the command printed.
        #expect(printed.contains("gitbay-sync remove-account '\(name)'"), "\(printed)")
        for command in printed {
            #expect(try ShellWords.split(command).contains(name), "\(command)")
        }
    }

    struct Username: Sendable, CustomTestStringConvertible {
        let why: String
        let name: String
        var testDescription: String { why }
    }

    @Test(
        "login refuses a whoami user name outside gitbay's form: 65, nothing stored",
        arguments: [
            Username(why: "empty", name: ""),
            Username(why: "a line break", name: "alice\nroot"),
            Username(why: "a screen clear", name: "alice\u{1B}[2J"),
            Username(why: "a title sequence", name: "alice\u{1B}]0;title\u{07}"),
            Username(why: "DEL", name: "alice\u{7F}"),
            Username(why: "a C1 CSI", name: "alice\u{9B}2J"),
            Username(why: "a bidi override", name: "alice\u{202E}nimda"),
            Username(why: "a backslash", name: #"alice\n"#),
            Username(why: "a command substitution", name: "$(touch${IFS}PWNED)"),
            Username(why: "a leading dash, an option to another program", name: "-uX"),
            Username(why: "a capital letter", name: "Alice"),
            Username(why: "a space", name: "alice root"),
            Username(why: "a leading dot", name: ".alice"),
            Username(why: "a name ending in .git", name: "alice.git"),
            Username(why: "64 characters", name: String(repeating: "a", count: 64)),
        ])
    func unusableUsername(_ username: Username) async throws {
        let server = try FakeGitbayServer()
        let cli = try CLIHarness()
        let token = server.mintToken(for: username.name)
        let result = await cli.run(["login", server.baseURL], stdin: token)
        #expect(result.code == ExitCode.dataError.rawValue, "\(result.err)")
        #expect(result.err.contains("not a gitbay user name"))
        #expect(result.err.contains("nothing was stored"))
        #expect(Self.isInert(result.out + result.err))
        #expect(result.err.split(separator: "\n").count == 1)
        #expect(try await cli.store().accounts().isEmpty)
        #expect(server.requests().map(\.argv) == [["whoami"]])
    }
}
