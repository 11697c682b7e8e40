import Foundation
import TestSupport
import Testing

@testable import GitbayAPI
@testable import GitbayReconcile
@testable import GitbayState
@testable import GitbaySupport
@testable import GitbaySync
@testable import PushResolve

@Suite("Command-line parser")
struct CommandLineParserTests {
    /// A command line and what it must parse to.
    struct Case: Sendable, CustomTestStringConvertible {
        let arguments: [String]
        let command: Invocation.Request
        var global = GlobalOptions()

        var testDescription: String { arguments.isEmpty ? "(nothing)" : arguments.joined(separator: " ") }
    }

    static let commandCases: [Case] = [
        Case(arguments: ["login", "https://gitbay.org"], command: .command(LoginCommand(instance: "https://gitbay.org"))),
        Case(arguments: ["accounts"], command: .command(AccountsCommand())),
        Case(arguments: ["remove-account", "alice@gitbay.org"], command: .command(RemoveAccountCommand(account: "alice@gitbay.org", force: false))),
        Case(
            arguments: ["remove-account", "alice@gitbay.org", "--force"],
            command: .command(RemoveAccountCommand(account: "alice@gitbay.org", force: true))),
        Case(
            arguments: ["remove-account", "--force", "alice@gitbay.org"],
            command: .command(RemoveAccountCommand(account: "alice@gitbay.org", force: true))),
        Case(
            arguments: ["--force", "remove-account", "alice@gitbay.org"],
            command: .command(RemoveAccountCommand(account: "alice@gitbay.org", force: true))),
        Case(arguments: ["pause", "alice@gitbay.org"], command: .command(PauseCommand(account: "alice@gitbay.org"))),
        Case(arguments: ["resume", "alice@gitbay.org"], command: .command(ResumeCommand(account: "alice@gitbay.org"))),
        Case(arguments: ["prefer", "bob@gitbay.org"], command: .command(PreferCommand(account: "bob@gitbay.org"))),
        Case(arguments: ["device", "set-token"], command: .command(DeviceSetTokenCommand(label: nil))),
        Case(arguments: ["device", "set-token", "--label", "my laptop"], command: .command(DeviceSetTokenCommand(label: "my laptop"))),
        Case(arguments: ["device", "set-token", "--label=my laptop"], command: .command(DeviceSetTokenCommand(label: "my laptop"))),
        Case(arguments: ["--label", "phone", "device", "set-token"], command: .command(DeviceSetTokenCommand(label: "phone"))),
        Case(arguments: ["device", "set-token", "--label", "--odd"], command: .command(DeviceSetTokenCommand(label: "--odd"))),
        Case(arguments: ["device", "show"], command: .command(DeviceShowCommand())),
        Case(arguments: ["device", "clear"], command: .command(DeviceClearCommand())),
        Case(arguments: ["run"], command: .command(RunCommand())),
        Case(arguments: ["run", "--every", "15m"], command: .command(RunCommand(.every(.seconds(900))))),
        Case(arguments: ["run", "--every=1h30m", "--concurrency=2"], command: .command(RunCommand(.every(.seconds(5400)), concurrency: 2))),
        Case(arguments: ["--concurrency", "64", "run", "--every", "10s"], command: .command(RunCommand(.every(.seconds(10)), concurrency: 64))),
        Case(arguments: ["run", "--concurrency", "1", "--every", "7d"], command: .command(RunCommand(.every(.seconds(7 * 86400)), concurrency: 1))),
        Case(arguments: ["run", "--now"], command: .command(RunCommand(.once(now: true)))),
        Case(arguments: ["run", "--unattended"], command: .command(RunCommand(unattended: true))),
        Case(arguments: ["run", "--every", "1h", "--unattended"], command: .command(RunCommand(.every(.seconds(3600)), unattended: true))),
        Case(arguments: ["status"], command: .command(StatusCommand())),
        Case(arguments: ["doctor"], command: .command(DoctorCommand())),
        Case(arguments: ["devices"], command: .command(DevicesCommand(account: nil))),
        Case(arguments: ["devices", "alice@gitbay.org"], command: .command(DevicesCommand(account: "alice@gitbay.org"))),
        Case(
            arguments: ["devices", "remove", "alice@gitbay.org", "12"],
            command: .command(DevicesRemoveCommand(account: "alice@gitbay.org", id: 12, yes: false))),
        Case(
            arguments: ["devices", "remove", "--yes", "alice@gitbay.org", "12"],
            command: .command(DevicesRemoveCommand(account: "alice@gitbay.org", id: 12, yes: true))),
        Case(arguments: ["push", "on", "alice@gitbay.org"], command: .command(PushOnCommand(account: "alice@gitbay.org"))),
        Case(arguments: ["push", "off", "alice@gitbay.org"], command: .command(PushOffCommand(account: "alice@gitbay.org"))),
        Case(arguments: ["push", "show"], command: .command(PushShowCommand(account: nil))),
        Case(arguments: ["push", "show", "alice@gitbay.org"], command: .command(PushShowCommand(account: "alice@gitbay.org"))),
        Case(arguments: ["resolve"], command: .command(ResolveCommand())),
        Case(arguments: ["service", "install"], command: .command(ServiceInstallCommand(every: nil))),
        Case(arguments: ["service", "install", "--every", "30m"], command: .command(ServiceInstallCommand(every: .seconds(1800)))),
        Case(arguments: ["service", "install", "--force"], command: .command(ServiceInstallCommand(every: nil, force: true))),
        Case(arguments: ["service", "uninstall"], command: .command(ServiceUninstallCommand())),
        Case(arguments: ["service", "uninstall", "--force"], command: .command(ServiceUninstallCommand(force: true))),
        Case(arguments: ["service", "show", "--every=1d"], command: .command(ServiceShowCommand(every: .seconds(86400)))),
        Case(arguments: ["completions", "bash"], command: .command(CompletionsCommand(shell: .bash))),
        Case(arguments: ["completions", "zsh"], command: .command(CompletionsCommand(shell: .zsh))),
        Case(arguments: ["completions", "fish"], command: .command(CompletionsCommand(shell: .fish))),
        Case(arguments: ["man"], command: .command(ManCommand())),
        Case(arguments: ["version"], command: .command(VersionCommand())),
        Case(arguments: ["version", "--json"], command: .command(VersionCommand()), global: .init(json: true)),
        Case(
            arguments: ["devices", "rm", "alice@gitbay.org", "12"],
            command: .command(DevicesRemoveCommand(account: "alice@gitbay.org", id: 12, yes: false))),
        Case(arguments: ["devices", "rm", "--yes", "a@h", "7"], command: .command(DevicesRemoveCommand(account: "a@h", id: 7, yes: true))),
    ]

    static let globalCases: [Case] = [
        Case(arguments: ["status", "--db", "/tmp/x.db"], command: .command(StatusCommand()), global: .init(databasePath: "/tmp/x.db")),
        Case(arguments: ["--db=/tmp/x.db", "status"], command: .command(StatusCommand()), global: .init(databasePath: "/tmp/x.db")),
        Case(arguments: ["--json", "accounts"], command: .command(AccountsCommand()), global: .init(json: true)),
        Case(arguments: ["accounts", "--json"], command: .command(AccountsCommand()), global: .init(json: true)),
        Case(arguments: ["-v", "run"], command: .command(RunCommand()), global: .init(verbosity: 1)),
        Case(arguments: ["run", "-vv"], command: .command(RunCommand()), global: .init(verbosity: 2)),
        Case(arguments: ["-v", "run", "-v", "--verbose"], command: .command(RunCommand()), global: .init(verbosity: 3)),
        Case(arguments: ["-vvv", "status"], command: .command(StatusCommand()), global: .init(verbosity: 3)),
        Case(
            arguments: ["--verbose", "--db", "s.db", "run", "--json", "--every", "1m"],
            command: .command(RunCommand(.every(.seconds(60)))), global: .init(databasePath: "s.db", json: true, verbosity: 1)
        ),
        // `--` ends the options: what follows is an argument even when it starts with a dash.
        Case(
            arguments: ["remove-account", "--", "--odd@gitbay.org"],
            command: .command(RemoveAccountCommand(account: "--odd@gitbay.org", force: false))),
        Case(arguments: ["devices", "remove", "--yes", "--", "a@h", "7"], command: .command(DevicesRemoveCommand(account: "a@h", id: 7, yes: true))),
        Case(arguments: ["--", "status"], command: .command(StatusCommand())),
        Case(arguments: ["pause", "-"], command: .command(PauseCommand(account: "-"))),
    ]

    static let helpCases: [Case] = [
        Case(arguments: [], command: .help(topic: nil)),
        Case(arguments: ["--help"], command: .help(topic: nil)),
        Case(arguments: ["-h"], command: .help(topic: nil)),
        Case(arguments: ["help"], command: .help(topic: nil)),
        Case(arguments: ["--json"], command: .help(topic: nil), global: .init(json: true)),
        Case(arguments: ["help", "run"], command: .help(topic: ["run"])),
        Case(arguments: ["run", "--help"], command: .help(topic: ["run"])),
        Case(arguments: ["-h", "run", "--every", "nonsense"], command: .help(topic: ["run"])),
        Case(arguments: ["help", "device", "show"], command: .help(topic: ["device", "show"])),
        Case(arguments: ["device", "set-token", "-h"], command: .help(topic: ["device", "set-token"])),
        Case(arguments: ["device", "--help"], command: .help(topic: ["device"])),
        Case(arguments: ["help", "push"], command: .help(topic: ["push"])),
        Case(arguments: ["--version"], command: .version),
        Case(arguments: ["--json", "--version"], command: .version, global: .init(json: true)),
        Case(arguments: ["status", "--version"], command: .version),
        Case(arguments: ["run", "--every", "nonsense", "--version"], command: .version),
        Case(arguments: ["run", "--version", "--help"], command: .help(topic: ["run"])),
    ]

    @Test("every command parses, with options before or after its words", arguments: commandCases)
    func command(_ test: Case) throws {
        let invocation = try CommandLineParser.parse(test.arguments)
        #expect(invocation.request == test.command)
        #expect(invocation.global == test.global)
    }

    @Test("global options anywhere, -v counting, and -- ending the options", arguments: globalCases)
    func global(_ test: Case) throws {
        let invocation = try CommandLineParser.parse(test.arguments)
        #expect(invocation.request == test.command)
        #expect(invocation.global == test.global)
    }

    @Test("help and version", arguments: helpCases)
    func helpAndVersion(_ test: Case) throws {
        let invocation = try CommandLineParser.parse(test.arguments)
        #expect(invocation.request == test.command)
        #expect(invocation.global == test.global)
    }

    @Test("the registry covers every command", arguments: CommandRegistry.specs.map(\.name))
    func covered(_ name: String) {
        #expect(Self.commandCases.contains { $0.arguments.joined(separator: " ").hasPrefix(name) }, "no parse case for \(name)")
    }

    @Test("--help and `help` name every command, whose help shows its usage line", arguments: CommandRegistry.specs.map(\.name))
    func commandHelp(_ name: String) throws {
        let words = name.split(separator: " ").map(String.init)
        #expect(try CommandLineParser.parse(words + ["--help"]).request == .help(topic: words))
        #expect(try CommandLineParser.parse(["-h"] + words).request == .help(topic: words))
        #expect(try CommandLineParser.parse(["help"] + words).request == .help(topic: words))
        let spec = try #require(CommandRegistry.specs.first { $0.name == name })
        let text = HelpText.topic(words)
        // The usage line comes first, however it is wrapped.
        let usage = text.components(separatedBy: "\n\n")[0].components(separatedBy: "\n   or: ")[0]
        #expect(Self.unwrapped(usage) == "Usage: \(spec.usage)")
        #expect(Self.unwrapped(text).contains(spec.summary))
        for option in spec.options + GlobalOptions.specs {
            #expect(text.contains(option.name), "\(name) --help does not mention \(option.name)")
        }
        #expect(HelpText.program().contains("  \(name) "), "the program's help does not list \(name)")
    }

    /// A text with each run of spaces and line breaks made one space, as it reads unwrapped.
    static func unwrapped(_ text: String) -> String {
        text.split(whereSeparator: { $0 == " " || $0 == "\n" }).joined(separator: " ")
    }

    @Test("a group's help lists its commands", arguments: ["device", "push", "service"])
    func groupHelp(_ group: String) {
        let text = Self.unwrapped(HelpText.topic([group]))
        #expect(text.hasPrefix("Usage: gitbay-sync \(group) <"))
        for spec in CommandRegistry.specs where spec.words.count == 2 && spec.words[0] == group {
            #expect(text.contains(" \(spec.name) "))
            #expect(text.contains(spec.summary))
        }
    }

    @Test(
        "help and version go to stdout with exit 0 and create no database",
        arguments: [
            ["--help"], ["help"], ["run", "--help"], ["help", "devices", "remove"], ["devices", "rm", "-h"], ["device", "--help"],
            ["--version"], ["version"], ["version", "--help"],
        ])
    func helpOnStdout(_ arguments: [String]) async throws {
        let cli = try CLIHarness()
        let result = await cli.run(arguments)
        #expect(result.code == 0)
        #expect(result.err.isEmpty)
        #expect(!result.out.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: cli.databasePath))
    }

    @Test("--version and the version command print the version, as JSON with --json", arguments: [["--version"], ["version"]])
    func version(_ asked: [String]) async throws {
        let cli = try CLIHarness()
        let text = await cli.run(asked)
        #expect(text.code == 0 && text.err.isEmpty)
        #expect(text.out == "gitbay-sync \(HelpText.version)")
        let json = await cli.run(asked + ["--json"])
        #expect(json.code == 0 && json.err.isEmpty)
        #expect(json.out == "{\"version\":\"\(HelpText.version)\"}")
        #expect(!FileManager.default.fileExists(atPath: cli.databasePath))
    }
}
