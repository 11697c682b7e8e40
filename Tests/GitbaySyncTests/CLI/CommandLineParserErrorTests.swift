import Foundation
import TestSupport
import Testing

@testable import GitbayAPI
@testable import GitbayReconcile
@testable import GitbayState
@testable import GitbaySupport
@testable import GitbaySync
@testable import PushResolve

@Suite("Command-line parser errors")
struct CommandLineParserErrorTests {
    /// A command line the parser refuses, with the exact message and the command it blames.
    struct Case: Sendable, CustomTestStringConvertible {
        let arguments: [String]
        let message: String
        let words: [String]?

        init(_ arguments: [String], _ message: String, _ words: [String]? = nil) {
            self.arguments = arguments
            self.message = message
            self.words = words
        }

        var testDescription: String { arguments.isEmpty ? "(nothing)" : arguments.joined(separator: " ") }
    }

    static let every = "write a whole number and a unit: 30s, 15m, 1h, 1h30m or 1d"
    static let concurrency = "give a whole number from 1 to 512"

    static let cases: [Case] = [
        // Commands.
        Case(["stauts"], "unknown command 'stauts'. Did you mean 'status'?"),
        Case(["acounts", "--json"], "unknown command 'acounts'. Did you mean 'accounts'?"),
        Case(["frobnicate"], "unknown command 'frobnicate'"),
        // A command's words and aliases come before anything else: the words after it are arguments.
        Case(["remove", "carol"], "unknown command 'remove'. Did you mean 'remove-account'?"),
        Case(["account"], "unknown command 'account'. Did you mean 'accounts'?"),
        Case(["dev", "show"], "unknown command 'dev'. Did you mean 'device' or 'devices'?"),
        Case(["install", "--every", "1h"], "unknown command 'install'. Did you mean 'service install'?"),
        Case(["rm", "alice@gitbay.org", "42"], "unknown command 'rm'. Did you mean 'devices rm'?"),
        Case(["set-tokn"], "unknown command 'set-tokn'. Did you mean 'device set-token'?"),
        Case(["show"], "unknown command 'show'. Did you mean 'device show', 'service show' or 'push show'?"),
        Case(["help", "remove"], "unknown command 'remove'. Did you mean 'remove-account'?"),
        Case(["help", "frobnicate"], "unknown command 'frobnicate'"),
        Case(["device", "sett"], "unknown subcommand 'sett' for 'device'; one of: set-token, show, clear", ["device"]),
        Case(["device", "shwo"], "unknown subcommand 'shwo' for 'device'; one of: set-token, show, clear. Did you mean 'show'?", ["device"]),
        Case(["help", "push", "of"], "unknown subcommand 'of' for 'push'; one of: on, off, show. Did you mean 'on'?", ["push"]),
        Case(["device"], "'device' needs a subcommand: set-token, show, clear", ["device"]),
        Case(["push"], "'push' needs a subcommand: on, off, show", ["push"]),
        Case(["--json", "service"], "'service' needs a subcommand: install, uninstall, show", ["service"]),
        // Options.
        Case(["run", "--concurency", "3"], "unknown option '--concurency' for 'run'. Did you mean '--concurrency'?", ["run"]),
        Case(["status", "--jsn"], "unknown option '--jsn' for 'status'. Did you mean '--json'?", ["status"]),
        Case(
            ["device", "set-token", "--lable", "x"], "unknown option '--lable' for 'device set-token'. Did you mean '--label'?",
            ["device", "set-token"]),
        Case(["status", "--frobnicate"], "unknown option '--frobnicate' for 'status'", ["status"]),
        Case(["accounts", "--force"], "unknown option '--force' for 'accounts'", ["accounts"]),
        // Another command's option is not this one's, whether it takes a value or not.
        Case(["status", "--label", "x"], "unknown option '--label' for 'status'", ["status"]),
        Case(["--every", "15m", "accounts"], "unknown option '--every' for 'accounts'", ["accounts"]),
        Case(["status", "-json"], "unknown option '-json'. Did you mean '--json'?", ["status"]),
        Case(["-x"], "unknown option '-x'; the short options are -h and -v"),
        Case(["-vq", "status"], "unknown option '-q'; the short options are -h and -v", ["status"]),
        Case(["run", "--concurrency"], "option '--concurrency' needs a value", ["run"]),
        Case(["device", "set-token", "--label"], "option '--label' needs a value", ["device", "set-token"]),
        Case(["--every"], "option '--every' needs a value"),
        Case(["status", "--db"], "option '--db' needs a value", ["status"]),
        Case(["accounts", "--json=yes"], "option '--json' takes no value", ["accounts"]),
        Case(["--verbose=2", "run"], "option '--verbose' takes no value", ["run"]),
        Case(["--version=1"], "option '--version' takes no value"),
        Case(["remove-account", "a@h", "--force=yes"], "option '--force' takes no value", ["remove-account"]),
        Case(["run", "--concurrency", "2", "--concurrency=3"], "option '--concurrency' is given twice", ["run"]),
        Case(["remove-account", "--force", "a@h", "--force"], "option '--force' is given twice", ["remove-account"]),
        Case(["--concurrency", "3"], "option '--concurrency' needs a command before it"),
        // Arguments.
        Case(
            ["login"], "'login' needs <instance-url>: The instance, e.g. https://gitbay.org, or gitbay.org for https (plain http only for loopback).",
            ["login"]),
        Case(["pause"], "'pause' needs <account>: \(CommandSpec.Argument.account.help)", ["pause"]),
        Case(
            ["devices", "remove", "a@h"], "'devices remove' needs <id>: The server's device id, from `gitbay-sync devices`.", ["devices", "remove"]),
        Case(["devices", "rm", "a@h"], "'devices rm' needs <id>: The server's device id, from `gitbay-sync devices`.", ["devices", "rm"]),
        Case(
            ["login", "https://a.example", "https://b.example"],
            "unexpected argument 'https://b.example' for 'login': an SSH destination follows --ssh",
            ["login"]),
        Case(["login", "https://a.example", "--ssh", "git@b.example", "c"], "unexpected argument 'c' for 'login'", ["login"]),
        Case(["status", "now"], "unexpected argument 'now' for 'status'", ["status"]),
        Case(["devices", "a@h", "b@h"], "unexpected argument 'b@h' for 'devices'", ["devices"]),
        Case(["run", "--", "--every"], "unexpected argument '--every' for 'run'", ["run"]),
        // Values.
        Case(["run", "--concurrency", "x"], "invalid value for --concurrency: 'x'; \(concurrency)", ["run"]),
        Case(["run", "--concurrency=0"], "invalid value for --concurrency: '0'; \(concurrency)", ["run"]),
        Case(["run", "--concurrency", "513"], "invalid value for --concurrency: '513'; \(concurrency)", ["run"]),
        Case(["run", "--concurrency", "-1"], "invalid value for --concurrency: '-1'; \(concurrency)", ["run"]),
        Case(["run", "--every", "0"], "invalid value for --every: '0' is not a duration; \(every)", ["run"]),
        Case(["run", "--every", "-5m"], "invalid value for --every: '-5m' is not a duration; \(every)", ["run"]),
        Case(["run", "--every=5"], "invalid value for --every: '5' is not a duration; \(every)", ["run"]),
        Case(["run", "--every", "5x"], "invalid value for --every: '5x' is not a duration; \(every)", ["run"]),
        Case(["run", "--every", "1h1h"], "invalid value for --every: '1h1h' is not a duration; \(every)", ["run"]),
        Case(["run", "--every", "8d"], "invalid value for --every: '8d' is too long; the period must be at most 7d", ["run"]),
        Case(["run", "--every", "5s"], "invalid value for --every: '5s' is too short; the period must be at least 10s", ["run"]),
        Case(
            ["service", "install", "--every", "5s"], "invalid value for --every: '5s' is too short; the period must be at least 10s",
            ["service", "install"]),
        Case(["service", "show", "--every", "1x"], "invalid value for --every: '1x' is not a duration; \(every)", ["service", "show"]),
        Case(["devices", "remove", "a@h", "x"], "'x' is not a device id; give the number `gitbay-sync devices` shows", ["devices", "remove"]),
        Case(["devices", "remove", "a@h", "0"], "'0' is not a device id; give the number `gitbay-sync devices` shows", ["devices", "remove"]),
        Case(
            ["run", "--every", "15m", "--now"], "--now and --every cannot be combined: every cycle of --every waits out each account's backoff",
            ["run"]),
        Case(["run", "--now=yes"], "option '--now' takes no value", ["run"]),
        Case(["service", "show", "--force"], "unknown option '--force' for 'service show'", ["service", "show"]),
        Case(["status", "--db="], "option '--db' needs a path to the state database", ["status"]),
        Case(["--db", "", "accounts"], "option '--db' needs a path to the state database", ["accounts"]),
    ]

    @Test("the message and the command it blames", arguments: cases)
    func message(_ test: Case) throws {
        let error = try #require(throws: UsageError.self) { try CommandLineParser.parse(test.arguments) }
        #expect(error.message == test.message)
        #expect(error.commandWords == test.words)
    }

    @Test("rendered on stderr as Error, Usage and See, exit 64, nothing on stdout (the error as JSON under --json)", arguments: cases)
    func rendered(_ test: Case) async throws {
        let cli = try CLIHarness()
        let result = await cli.run(test.arguments)
        #expect(result.code == ExitCode.usage.rawValue)
        if test.arguments.contains("--json") {
            let error = try #require(try result.json()["error"] as? [String: Any])
            #expect(error["message"] as? String == test.message)
            #expect(error["exit_code"] as? Int == 64)
        } else {
            #expect(result.out.isEmpty)
        }
        let lines = result.err.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines[0] == "Error: \(test.message)")
        if let words = test.words {
            // The usage line wrapped to 80 columns, as without COLUMNS or a terminal.
            let usage = try #require(HelpText.usageLines(words, width: 80))
            try #require(lines.count == 2 + usage.count, "\(result.err)")
            #expect(Array(lines[1...usage.count]) == usage)
            #expect(usage.joined(separator: " ").split(separator: " ").joined(separator: " ") == "Usage: \(try #require(HelpText.usage(words)))")
            #expect(usage.allSatisfy { $0.count <= 80 }, "\(usage)")
            #expect(lines[usage.count + 1] == "See 'gitbay-sync \(words.joined(separator: " ")) --help'.")
        } else {
            try #require(lines.count == 3, "\(result.err)")
            #expect(lines[1] == "Usage: gitbay-sync <command> [options]")
            #expect(lines[2] == "See 'gitbay-sync --help'.")
        }
        #expect(!FileManager.default.fileExists(atPath: cli.databasePath))
    }

    @Test("the usage lines name the command's options and arguments")
    func usageLines() throws {
        let expected: [[String]: String] = [
            ["run"]: "gitbay-sync run [--every DURATION] [--concurrency N] [--now] [--dry-run] [--unattended] [--no-notify]",
            ["devices", "remove"]: "gitbay-sync devices remove [--yes] <account> <id>",
            ["device", "set-token"]: "gitbay-sync device set-token [--label LABEL]",
            ["push", "show"]: "gitbay-sync push show [<account>]",
            ["device"]: "gitbay-sync device <set-token|show|clear> [options]",
        ]
        for (words, usage) in expected {
            #expect(HelpText.usage(words) == usage)
        }
        #expect(HelpText.usage(["nonsense"]) == nil)
    }

    @Test("a suggestion is only made for a near miss")
    func nearMiss() {
        #expect(NearMiss.suggestion(for: "stauts", among: CommandRegistry.commandNames) == "status")
        #expect(NearMiss.suggestion(for: "remove-acount", among: CommandRegistry.commandNames) == "remove-account")
        #expect(NearMiss.suggestion(for: "xyzzy", among: CommandRegistry.commandNames) == nil)
        #expect(CommandSuggestion.candidates(forCommand: "xyzzy") == [])
        // Every command a word begins, up to three, in the help's order.
        #expect(CommandSuggestion.candidates(forCommand: "re") == ["remove-account", "resume", "resolve"])
        #expect(CommandSuggestion.candidates(forCommand: "pu") == ["push"])
    }
}
