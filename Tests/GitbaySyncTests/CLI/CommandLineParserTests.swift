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
        let command: Command
        var global = GlobalOptions()

        var testDescription: String { arguments.isEmpty ? "(nothing)" : arguments.joined(separator: " ") }
    }

    static let commandCases: [Case] = [
        Case(arguments: ["login", "https://gitbay.org"], command: .login(instance: "https://gitbay.org")),
        Case(arguments: ["accounts"], command: .accounts),
        Case(arguments: ["remove-account", "alice@gitbay.org"], command: .removeAccount(account: "alice@gitbay.org", force: false)),
        Case(arguments: ["remove-account", "alice@gitbay.org", "--force"], command: .removeAccount(account: "alice@gitbay.org", force: true)),
        Case(arguments: ["remove-account", "--force", "alice@gitbay.org"], command: .removeAccount(account: "alice@gitbay.org", force: true)),
        Case(arguments: ["--force", "remove-account", "alice@gitbay.org"], command: .removeAccount(account: "alice@gitbay.org", force: true)),
        Case(arguments: ["pause", "alice@gitbay.org"], command: .pause(account: "alice@gitbay.org")),
        Case(arguments: ["resume", "alice@gitbay.org"], command: .resume(account: "alice@gitbay.org")),
        Case(arguments: ["prefer", "bob@gitbay.org"], command: .prefer(account: "bob@gitbay.org")),
        Case(arguments: ["device", "set-token"], command: .deviceSetToken(label: nil)),
        Case(arguments: ["device", "set-token", "--label", "my laptop"], command: .deviceSetToken(label: "my laptop")),
        Case(arguments: ["device", "set-token", "--label=my laptop"], command: .deviceSetToken(label: "my laptop")),
        Case(arguments: ["--label", "phone", "device", "set-token"], command: .deviceSetToken(label: "phone")),
        Case(arguments: ["device", "set-token", "--label", "--odd"], command: .deviceSetToken(label: "--odd")),
        Case(arguments: ["device", "show"], command: .deviceShow),
        Case(arguments: ["device", "clear"], command: .deviceClear),
        Case(arguments: ["run"], command: .run(every: nil, concurrency: nil)),
        Case(arguments: ["run", "--every", "15m"], command: .run(every: .seconds(900), concurrency: nil)),
        Case(arguments: ["run", "--every=1h30m", "--concurrency=2"], command: .run(every: .seconds(5400), concurrency: 2)),
        Case(arguments: ["--concurrency", "64", "run", "--every", "10s"], command: .run(every: .seconds(10), concurrency: 64)),
        Case(arguments: ["run", "--concurrency", "1", "--every", "7d"], command: .run(every: .seconds(7 * 86400), concurrency: 1)),
        Case(arguments: ["run", "--now"], command: .run(every: nil, concurrency: nil, now: true)),
        Case(arguments: ["run", "--unattended"], command: .run(every: nil, concurrency: nil, unattended: true)),
        Case(arguments: ["run", "--every", "1h", "--unattended"], command: .run(every: .seconds(3600), concurrency: nil, unattended: true)),
        Case(arguments: ["status"], command: .status),
        Case(arguments: ["doctor"], command: .doctor),
        Case(arguments: ["devices"], command: .devices(account: nil)),
        Case(arguments: ["devices", "alice@gitbay.org"], command: .devices(account: "alice@gitbay.org")),
        Case(arguments: ["devices", "remove", "alice@gitbay.org", "12"], command: .devicesRemove(account: "alice@gitbay.org", id: 12, yes: false)),
        Case(arguments: ["devices", "remove", "--yes", "alice@gitbay.org", "12"], command: .devicesRemove(account: "alice@gitbay.org", id: 12, yes: true)),
        Case(arguments: ["push", "on", "alice@gitbay.org"], command: .push(.on, account: "alice@gitbay.org")),
        Case(arguments: ["push", "off", "alice@gitbay.org"], command: .push(.off, account: "alice@gitbay.org")),
        Case(arguments: ["push", "show"], command: .push(.show, account: nil)),
        Case(arguments: ["push", "show", "alice@gitbay.org"], command: .push(.show, account: "alice@gitbay.org")),
        Case(arguments: ["resolve"], command: .resolve),
        Case(arguments: ["service", "install"], command: .serviceInstall(every: nil)),
        Case(arguments: ["service", "install", "--every", "30m"], command: .serviceInstall(every: .seconds(1800))),
        Case(arguments: ["service", "install", "--force"], command: .serviceInstall(every: nil, force: true)),
        Case(arguments: ["service", "uninstall"], command: .serviceUninstall()),
        Case(arguments: ["service", "uninstall", "--force"], command: .serviceUninstall(force: true)),
        Case(arguments: ["service", "show", "--every=1d"], command: .serviceShow(every: .seconds(86400))),
        Case(arguments: ["completions", "bash"], command: .completions(.bash)),
        Case(arguments: ["completions", "zsh"], command: .completions(.zsh)),
        Case(arguments: ["completions", "fish"], command: .completions(.fish)),
        Case(arguments: ["man"], command: .man),
    ]

    static let globalCases: [Case] = [
        Case(arguments: ["status", "--db", "/tmp/x.db"], command: .status, global: .init(databasePath: "/tmp/x.db")),
        Case(arguments: ["--db=/tmp/x.db", "status"], command: .status, global: .init(databasePath: "/tmp/x.db")),
        Case(arguments: ["--json", "accounts"], command: .accounts, global: .init(json: true)),
        Case(arguments: ["accounts", "--json"], command: .accounts, global: .init(json: true)),
        Case(arguments: ["-v", "run"], command: .run(every: nil, concurrency: nil), global: .init(verbosity: 1)),
        Case(arguments: ["run", "-vv"], command: .run(every: nil, concurrency: nil), global: .init(verbosity: 2)),
        Case(arguments: ["-v", "run", "-v", "--verbose"], command: .run(every: nil, concurrency: nil), global: .init(verbosity: 3)),
        Case(arguments: ["-vvv", "status"], command: .status, global: .init(verbosity: 3)),
        Case(
            arguments: ["--verbose", "--db", "s.db", "run", "--json", "--every", "1m"],
            command: .run(every: .seconds(60), concurrency: nil), global: .init(databasePath: "s.db", json: true, verbosity: 1)
        ),
        // `--` ends the options: what follows is an argument even when it starts with a dash.
        Case(arguments: ["remove-account", "--", "--odd@gitbay.org"], command: .removeAccount(account: "--odd@gitbay.org", force: false)),
        Case(arguments: ["devices", "remove", "--yes", "--", "a@h", "7"], command: .devicesRemove(account: "a@h", id: 7, yes: true)),
        Case(arguments: ["--", "status"], command: .status),
        Case(arguments: ["pause", "-", ], command: .pause(account: "-")),
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
        #expect(invocation.command == test.command)
        #expect(invocation.global == test.global)
    }

    @Test("global options anywhere, -v counting, and -- ending the options", arguments: globalCases)
    func global(_ test: Case) throws {
        let invocation = try CommandLineParser.parse(test.arguments)
        #expect(invocation.command == test.command)
        #expect(invocation.global == test.global)
    }

    @Test("help and version", arguments: helpCases)
    func helpAndVersion(_ test: Case) throws {
        let invocation = try CommandLineParser.parse(test.arguments)
        #expect(invocation.command == test.command)
        #expect(invocation.global == test.global)
    }

    @Test("the table covers every command", arguments: CommandTable.all.map(\.name))
    func covered(_ name: String) {
        #expect(Self.commandCases.contains { $0.arguments.joined(separator: " ").hasPrefix(name) }, "no parse case for \(name)")
    }

    @Test("--help and `help` name every command, whose help shows its usage line", arguments: CommandTable.all.map(\.name))
    func commandHelp(_ name: String) throws {
        let words = name.split(separator: " ").map(String.init)
        #expect(try CommandLineParser.parse(words + ["--help"]).command == .help(topic: words))
        #expect(try CommandLineParser.parse(["-h"] + words).command == .help(topic: words))
        #expect(try CommandLineParser.parse(["help"] + words).command == .help(topic: words))
        let spec = try #require(CommandTable.all.first { $0.name == name })
        let text = HelpText.topic(words)
        #expect(text.hasPrefix("Usage: \(spec.usage)\n"))
        #expect(text.contains(spec.summary))
        for option in spec.options + GlobalOption.all {
            #expect(text.contains(option.name), "\(name) --help does not mention \(option.name)")
        }
        #expect(HelpText.program().contains("  \(name) "), "the program's help does not list \(name)")
    }

    @Test("a group's help lists its commands", arguments: ["device", "push", "service"])
    func groupHelp(_ group: String) {
        let text = HelpText.topic([group])
        #expect(text.hasPrefix("Usage: gitbay-sync \(group) <"))
        for spec in CommandTable.all where spec.words.count == 2 && spec.words[0] == group {
            #expect(text.contains("  \(spec.name)  ") || text.contains("  \(spec.name) "))
            #expect(text.contains(spec.summary))
        }
    }

    @Test("help and version go to stdout with exit 0 and create no database", arguments: [
        ["--help"], ["help"], ["run", "--help"], ["help", "devices", "remove"], ["device", "--help"], ["--version"],
    ])
    func helpOnStdout(_ arguments: [String]) async throws {
        let cli = try CLIHarness()
        let result = await cli.run(arguments)
        #expect(result.code == 0)
        #expect(result.err.isEmpty)
        #expect(!result.out.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: cli.databasePath))
    }

    @Test("--version prints the version, as JSON with --json")
    func version() async throws {
        let cli = try CLIHarness()
        #expect(await cli.run(["--version"]).out == "gitbay-sync \(HelpText.version)")
        let json = await cli.run(["--version", "--json"])
        #expect(try json.json()["version"] as? String == HelpText.version)
    }
}
