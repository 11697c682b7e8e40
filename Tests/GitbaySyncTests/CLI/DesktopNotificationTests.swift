import Foundation
import GitbayFake
import TestSupport
import Testing

@testable import GitbayReconcile
@testable import GitbayState
@testable import GitbaySupport
@testable import GitbaySync

/// An unattended run's desktop notifications, shown by a fake notify-send named in
/// `$GITBAY_SYNC_NOTIFY`: a shell script that appends its argv to a log, one call a line,
/// the words separated by a unit separator. There is no desktop in this container to show a
/// real one, so the fake is the only way to see what would be raised; a desktop is faked by
/// setting `DISPLAY` for the run only (no D-Bus, so the keyring is not asked).
@Suite("desktop notifications of unattended runs")
struct DesktopNotificationTests {
    /// A fake notify-send in `folder` that logs to `folder/calls` and exits `status`.
    static func fakeNotifier(in folder: String, status: Int = 0) throws -> String {
        let path = folder + "/notify-send"
        let script = """
            #!/bin/sh
            for word in "$@"; do printf '%s\\037' "$word"; done >> '\(folder)/calls'
            printf '\\n' >> '\(folder)/calls'
            exit \(status)

            """
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        #expect(FileManager.default.createFile(atPath: path, contents: Data(script.utf8), attributes: [.posixPermissions: 0o755]))
        return path
    }

    /// Each call the fake logged, as its words.
    static func calls(_ folder: String) -> [[String]] {
        guard let data = fileBytes(folder + "/calls") else { return [] }
        return String(decoding: data, as: UTF8.self).split(separator: "\n").map { line in
            line.split(separator: "\u{1F}", omittingEmptySubsequences: false).dropLast().map(String.init)
        }
    }

    /// A signed-in account with a device token set; its token, to revoke.
    static func signedIn(_ cli: CLIHarness, _ server: FakeGitbayServer, _ user: String = "alice") async throws -> (name: String, token: String) {
        let token = server.mintToken(for: user)
        #expect(await cli.run(["device", "set-token"], stdin: "c0ffee00aaaabbbbccccdddd").code == 0)
        let login = await cli.run(["login", server.baseURL], stdin: token + "\n")
        #expect(login.code == 0, "\(login.err)")
        return ("\(user)@127.0.0.1:\(server.port)", token)
    }

    @Test(
        "one notification per new failure: when the token is first refused, none while it stays refused, one again after a sign-in and a new refusal")
    func oncePerNewFailure() async throws {
        let server = try FakeGitbayServer()
        let cli = try CLIHarness()
        let fake = cli.folder.path + "/bin"
        let desktop = ["DISPLAY": ":0", "GITBAY_SYNC_NOTIFY": try Self.fakeNotifier(in: fake)]
        let (alice, first) = try await Self.signedIn(cli, server)
        #expect(await cli.run(["run", "--unattended"], extraEnvironment: desktop).code == 0)
        #expect(Self.calls(fake).isEmpty, "nothing needs the user yet")

        server.revokeToken(first)
        #expect(await cli.run(["run", "--unattended"], extraEnvironment: desktop).code == 1)
        let raised = Self.calls(fake)
        #expect(raised.count == 1)
        let words = try #require(raised.first)
        #expect(words.count == 4)
        #expect(words.first == "--app-name=gitbay-sync")
        // Options end before the summary and body, which carry an account name.
        #expect(words.dropFirst().first == "--")
        #expect(words.dropFirst(2).first == "gitbay-sync: \(alice) needs you")
        let body = words.last ?? ""
        #expect(body.hasPrefix("\(alice): its API token was refused"), "\(body)")
        #expect(body == "\(alice): its API token was refused; `gitbay-sync status` says how to sign in again.", "\(body)")

        #expect(await cli.run(["run", "--unattended"], extraEnvironment: desktop).code == 1)
        #expect(await cli.run(["run", "--unattended", "--now"], extraEnvironment: desktop).code == 1)
        #expect(Self.calls(fake).count == 1, "still refused: not new")

        let second = server.mintToken(for: "alice")
        #expect(await cli.run(["login", server.baseURL], stdin: second + "\n").code == 0)
        #expect(await cli.run(["run", "--unattended"], extraEnvironment: desktop).code == 0)
        server.revokeToken(second)
        #expect(await cli.run(["run", "--unattended"], extraEnvironment: desktop).code == 1)
        #expect(Self.calls(fake).count == 2, "a new failure after recovering")
        let everything = Self.calls(fake).flatMap { $0 }.joined(separator: "\n")
        #expect(!everything.contains(first) && !everything.contains(second), "no token in a notification")
    }

    @Test("without a desktop session, with --no-notify, or in a run by hand, none is raised")
    func noneRaised() async throws {
        let server = try FakeGitbayServer()
        let cli = try CLIHarness()
        let fake = cli.folder.path + "/bin"
        let program = try Self.fakeNotifier(in: fake)
        let (_, token) = try await Self.signedIn(cli, server)
        server.revokeToken(token)
        let noDesktop = await cli.run(["run", "--unattended"], extraEnvironment: ["GITBAY_SYNC_NOTIFY": program])
        #expect(noDesktop.code == 1)
        #expect(noDesktop.out.contains("failed"), "\(noDesktop.out)\(noDesktop.err)")
        #expect(Self.calls(fake).isEmpty, "no DISPLAY, WAYLAND_DISPLAY or DBUS_SESSION_BUS_ADDRESS")
        let desktop = ["WAYLAND_DISPLAY": "wayland-0", "GITBAY_SYNC_NOTIFY": program]
        // The failure is still new to these runs: the run above raised nothing, but it recorded
        // the condition, so sign in again and have it refused anew for each.
        for arguments in [["run", "--unattended", "--no-notify"], ["run"]] {
            let token = server.mintToken(for: "alice")
            #expect(await cli.run(["login", server.baseURL], stdin: token + "\n").code == 0)
            server.revokeToken(token)
            #expect(await cli.run(arguments, extraEnvironment: desktop).code == 1)
            #expect(Self.calls(fake).isEmpty, "\(arguments)")
        }
        let token2 = server.mintToken(for: "alice")
        #expect(await cli.run(["login", server.baseURL], stdin: token2 + "\n").code == 0)
        server.revokeToken(token2)
        #expect(await cli.run(["run", "--unattended"], extraEnvironment: desktop).code == 1)
        #expect(Self.calls(fake).count == 1, "the same run with a desktop raises it")
    }

    @Test("a notifier that fails or is missing leaves the run as it was: the same exit code and lines, and a debug line")
    func failingNotifier() async throws {
        let server = try FakeGitbayServer()
        let cli = try CLIHarness()
        let fake = cli.folder.path + "/bin"
        let program = try Self.fakeNotifier(in: fake, status: 1)
        let (alice, token) = try await Self.signedIn(cli, server)
        server.revokeToken(token)
        let failing = await cli.run(["run", "--unattended", "-vv"], extraEnvironment: ["DISPLAY": ":0", "GITBAY_SYNC_NOTIFY": program])
        #expect(failing.code == 1)
        #expect(Self.calls(fake).count == 1)
        #expect(failing.err.contains("notify: \(program) exited 1 for \(alice)"), "\(failing.err)")

        let again = server.mintToken(for: "alice")
        #expect(await cli.run(["login", server.baseURL], stdin: again + "\n").code == 0)
        server.revokeToken(again)
        let missing = await cli.run(
            ["run", "--unattended", "-vv"], extraEnvironment: ["DISPLAY": ":0", "GITBAY_SYNC_NOTIFY": fake + "/nothing-here"])
        #expect(missing.code == 1)
        #expect(missing.err.contains("notify: no notification raised: GITBAY_SYNC_NOTIFY names \(fake)/nothing-here"), "\(missing.err)")
    }

    @Test("run --every raises one for a new failure, not again in the next cycles")
    func everyCycles() async throws {
        let server = try FakeGitbayServer()
        let cli = try CLIHarness(environment: { folder in
            [
                "HOME": folder, "XDG_STATE_HOME": folder + "/state", "XDG_CONFIG_HOME": folder + "/config", "PATH": "/usr/bin:/bin",
                "DISPLAY": ":0", "GITBAY_SYNC_NOTIFY": folder + "/bin/notify-send",
            ]
        })
        let fake = cli.folder.path + "/bin"
        _ = try Self.fakeNotifier(in: fake)
        let (alice, token) = try await Self.signedIn(cli, server)
        server.revokeToken(token)
        let result = await RunEveryTests.runTimer(cli, cycles: 3, clock: RunEveryTests.TestClock())
        #expect(result.code == 0, "\(result.err)")
        #expect(Self.calls(fake).map { $0.dropFirst(2).first } == ["gitbay-sync: \(alice) needs you"])
    }

    struct Transition: Sendable, CustomStringConvertible {
        let before: AccountCondition?
        let after: AccountCondition
        var stopped = false
        let raised: Bool
        var description: String { "\(before?.rawValue ?? "none") -> \(after.rawValue)\(stopped ? " (stopped)" : "")" }
    }

    @Test(
        "a failure is new when the pass leaves the account needing the user in a condition other than the one it read",
        arguments: [
            Transition(before: .registered, after: .authFailed, raised: true),
            Transition(before: .pending, after: .denied, raised: true),
            Transition(before: nil, after: .pushDisabled, raised: true),
            Transition(before: .authFailed, after: .denied, raised: true),
            Transition(before: .authFailed, after: .authFailed, raised: false),
            Transition(before: .pushDisabled, after: .pushDisabled, raised: false),
            Transition(before: .registered, after: .error, raised: false),
            Transition(before: .authFailed, after: .registered, raised: false),
            Transition(before: .registered, after: .authFailed, stopped: true, raised: false),
        ])
    func newFailure(_ transition: Transition) throws {
        let instance = try InstanceURL(parsing: "https://git.example.com")
        var outcome = AccountOutcome(
            accountID: 7, account: "alice@git.example.com", instance: instance, action: .failed, condition: transition.after)
        outcome.stopped = transition.stopped
        let before = transition.before.map { [Int64(7): DesktopNotification.Before(condition: $0)] } ?? [:]
        #expect(DesktopNotification.newFailures(before: before, [outcome]).isEmpty == !transition.raised)
    }

    @Test("the body escapes notify-send's markup; osascript gets an AppleScript string")
    func bodyQuoting() throws {
        let outcome = AccountOutcome(
            accountID: 1, account: "a<b>&c@host", instance: try InstanceURL(parsing: "https://host"), action: .failed, condition: .pushDisabled)
        let notification = DesktopNotification(outcome)
        #expect(notification.arguments(.systemd).last?.hasPrefix("a&lt;b&gt;&amp;c@host: its instance sends no pushes") == true)
        #expect(DesktopNotification.appleScriptQuoted(#"say "hi" \ bye"#) == #""say \"hi\" \\ bye""#)
        #expect(notification.arguments(.launchd).first == "-e")
    }

    @Test(
        "a body is one short sentence with at most one command, whatever the condition",
        arguments: [
            AccountCondition.authFailed, .denied, .pushDisabled,
        ])
    func shortBody(condition: AccountCondition) throws {
        let instance = try InstanceURL(parsing: "https://gitbay.example.com")
        var outcome = AccountOutcome(accountID: 1, account: "alice@gitbay.example.com", instance: instance, action: .failed, condition: condition)
        outcome.sshDestination = "git@ssh.gitbay.example.com:2222"
        let body = DesktopNotification(outcome).body
        #expect(body.count <= 120, "\(body.count): \(body)")
        #expect(body.filter { $0 == "`" }.count == 2, "one command: \(body)")
        #expect(!body.dropLast().contains(". "), "one sentence: \(body)")
    }
}
