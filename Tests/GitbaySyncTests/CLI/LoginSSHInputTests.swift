import Foundation
import GitbayFake
import TestSupport
import Testing

@testable import GitbayState
@testable import GitbaySupport
@testable import GitbaySync

/// What `login --ssh` refuses before it runs ssh: no server is called, no database made.
@Suite("login --ssh refuses bad input before ssh runs")
struct LoginSSHInputTests {
    /// A CLI whose `$GITBAY_SYNC_SSH` is a shell that leaves a file behind when it runs.
    struct Scene {
        let cli: CLIHarness
        let ran: String

        init() throws {
            cli = try CLIHarness()
            ran = cli.folder.file("ssh-ran")
        }

        var ssh: [String: String] { [SSHProgram.variable: "/bin/sh -c 'touch \"$0\"' " + ShellWords.quoted(ran)] }
        var sshRan: Bool { FileManager.default.fileExists(atPath: ran) }
        var databaseExists: Bool { FileManager.default.fileExists(atPath: cli.databasePath) }
    }

    struct Case: Sendable, CustomTestStringConvertible {
        let arguments: [String]
        let says: String
        var testDescription: String { arguments.joined(separator: " ") }
    }

    @Test(
        "a lifetime the server would not take, or one too short, is a usage error before ssh runs",
        arguments: [
            Case(arguments: ["--ttl", "5x"], says: "invalid value for --ttl: '5x' is not a lifetime"),
            Case(arguments: ["--ttl", "90"], says: "'90' is not a lifetime"),
            Case(arguments: ["--ttl", "-1h"], says: "'-1h' is not a lifetime"),
            Case(arguments: ["--ttl", ""], says: "'' is not a lifetime"),
            Case(arguments: ["--ttl", "1.5d"], says: "'1.5d' is not a lifetime"),
            Case(arguments: ["--ttl", "30m"], says: "'30m' is shorter than an hour"),
            Case(arguments: ["--ttl", "0"], says: "'0' is shorter than an hour"),
            Case(arguments: ["--ttl", "999999999d"], says: "is longer than a server takes"),
            Case(arguments: ["--ttl", "9999999999999h"], says: "is not a lifetime"),
            Case(arguments: ["--token-name", ""], says: "invalid value for --token-name: the name is empty"),
            Case(arguments: ["--token-name", "a\tb"], says: "the name holds a control character"),
        ])
    func badOption(_ test: Case) async throws {
        let scene = try Scene()

        let result = await scene.cli.run(["login", "https://gitbay.example", "--ssh"] + test.arguments, extraEnvironment: scene.ssh)

        #expect(result.code == ExitCode.usage.rawValue, "\(result.err)")
        #expect(result.err.contains(test.says), "\(result.err)")
        #expect(result.err.contains("Usage: gitbay-sync login"))
        #expect(!scene.sshRan)
        #expect(!scene.databaseExists)
    }

    @Test("a good lifetime does run ssh (here a shell that answers nothing): the refusals above came first")
    func goodLifetimeRuns() async throws {
        let scene = try Scene()

        let result = await scene.cli.run(["login", "https://gitbay.example", "--ssh", "--ttl", "2h"], extraEnvironment: scene.ssh)

        #expect(scene.sshRan)
        #expect(result.code == ExitCode.unavailable.rawValue, "\(result.err)")
        #expect(result.err.contains("git@gitbay.example did not answer `token create` as gitbay's SSH access does (ssh exited with status 0)"))
        // The server may have minted all the same: the name is kept for the next sign-in there, and no account.
        #expect(result.err.contains("only its name, gitbay-sync-"), "\(result.err)")
        #expect(try await scene.cli.store().accounts().isEmpty)
    }

    @Test("a second login --ssh whose answer never came says the name is kept with the accounts there, and what revokes the token")
    func secondLoginSaysNameKept() async throws {
        let server = try FakeGitbayServer()
        let scene = try Scene()
        let pasted = await scene.cli.run(["login", server.baseURL], stdin: server.mintToken(for: "alice", name: "pasted"))
        #expect(pasted.code == 0, "\(pasted.err)")

        let mint = await scene.cli.run(["login", server.baseURL, "--ssh"], extraEnvironment: scene.ssh)
        let named = await scene.cli.run(["login", server.baseURL, "--ssh", "--token-name", "ci-sync"], extraEnvironment: scene.ssh)

        #expect(mint.code == ExitCode.unavailable.rawValue, "\(mint.err)")
        #expect(
            mint.err.contains("is kept with the accounts of that server, and the next run revokes the token if the server lists it."), "\(mint.err)")
        #expect(named.code == ExitCode.unavailable.rawValue, "\(named.err)")
        #expect(
            named.err.contains("its name, ci-sync, is kept with the accounts of that server, and removing the account revokes it"), "\(named.err)")
        #expect(named.err.contains("`ssh git@127.0.0.1 token revoke ci-sync`"), "\(named.err)")
        let account = try #require(try await scene.cli.store().accounts().first)
        let stale = try #require(try await scene.cli.store().apiTokenRecords()[account.id]).staleNames
        #expect(stale.contains("ci-sync") && stale.count == 2, "both names recorded: \(stale)")
    }

    @Test(
        "--ttl and an SSH destination without --ssh are usage errors",
        arguments: [
            Case(arguments: ["--ttl", "30d"], says: "--ttl is for --ssh"),
            Case(arguments: ["git@gitbay.example"], says: "unexpected argument 'git@gitbay.example' for 'login': an SSH destination follows --ssh"),
        ])
    func withoutSSH(_ test: Case) async throws {
        let scene = try Scene()
        let result = await scene.cli.run(["login", "https://gitbay.example"] + test.arguments, stdin: "gb_x", extraEnvironment: scene.ssh)
        #expect(result.code == ExitCode.usage.rawValue, "\(result.err)")
        #expect(result.err.contains(test.says), "\(result.err)")
        #expect(!scene.databaseExists)
    }

    @Test(
        "a malformed SSH destination or $GITBAY_SYNC_SSH is bad input (exit 65) before ssh runs",
        arguments: [
            Case(arguments: ["-oProxyCommand=touch x"], says: "unknown option"),
            Case(arguments: ["--", "-oProxyCommand=x"], says: "'-oProxyCommand=x' is not an SSH destination"),
            Case(arguments: ["git@"], says: "'git@' is not an SSH destination: it names no host"),
            Case(arguments: ["git@host:0"], says: "the port is not a number from 1 to 65535"),
            Case(arguments: ["git@::1"], says: "write an IPv6 address in brackets"),
            Case(arguments: ["me;rm@host"], says: "the user name holds characters other than"),
        ])
    func badDestination(_ test: Case) async throws {
        let scene = try Scene()
        let result = await scene.cli.run(["login", "https://gitbay.example", "--ssh"] + test.arguments, extraEnvironment: scene.ssh)
        #expect(result.code == (test.says == "unknown option" ? ExitCode.usage : ExitCode.dataError).rawValue, "\(result.err)")
        #expect(result.err.contains(test.says), "\(result.err)")
        #expect(!scene.sshRan)
        #expect(!scene.databaseExists)
    }

    @Test("a $GITBAY_SYNC_SSH a shell would read otherwise is refused, naming the variable")
    func badVariable() async throws {
        let scene = try Scene()
        for (line, says) in [("ssh -F 'unclosed", "it leaves a ' unclosed"), ("ssh -i $HOME/key", "an unquoted $")] {
            let result = await scene.cli.run(["login", "https://gitbay.example", "--ssh"], extraEnvironment: [SSHProgram.variable: line])
            #expect(result.code == ExitCode.dataError.rawValue, "\(result.err)")
            #expect(result.err.contains("GITBAY_SYNC_SSH cannot be read as a command line: it"), "\(result.err)")
            #expect(result.err.contains(says), "\(result.err)")
        }
        #expect(!scene.databaseExists)
    }

    @Test("a missing ssh program: exit 69 naming it and the fix, nothing stored")
    func missingProgram() async throws {
        let scene = try Scene()
        let missing = scene.cli.folder.file("no/such/ssh")

        let named = await scene.cli.run(
            ["login", "https://gitbay.example", "--ssh"], extraEnvironment: [SSHProgram.variable: "\(missing) -F config"])
        let none = await scene.cli.run(["login", "https://gitbay.example", "--ssh"], extraEnvironment: ["PATH": scene.cli.folder.path])

        #expect(named.code == ExitCode.unavailable.rawValue, "\(named.err)")
        #expect(named.err.contains("GITBAY_SYNC_SSH names \(missing), which is not an executable file"), "\(named.err)")
        #expect(named.err.contains("nothing was stored"))
        #expect(none.code == ExitCode.unavailable.rawValue, "\(none.err)")
        #expect(none.err.contains("there is no ssh program on PATH"), "\(none.err)")
        #expect(none.err.contains("Install OpenSSH's client"))
        #expect(!scene.databaseExists)
    }

    @Test("a ssh that runs past its timeout is stopped: exit 69, nothing stored")
    func timeout() async throws {
        let scene = try Scene()

        let result = await scene.cli.run(
            ["login", "https://gitbay.example", "--ssh"], extraEnvironment: [SSHProgram.variable: "sh -c 'exec sleep 30'"],
            adjust: { $0.sshTimeout = .milliseconds(300) })

        #expect(result.code == ExitCode.unavailable.rawValue, "\(result.err)")
        #expect(result.err.contains("ssh to git@gitbay.example did not finish within 300ms and was stopped"), "\(result.err)")
        #expect(try await scene.cli.store().pendingMints(instance: try InstanceURL(parsing: "https://gitbay.example")).count == 1)
        #expect(try await scene.cli.store().accounts().isEmpty)
    }
}
