import Foundation
import TestSupport
import Testing

@testable import GitbaySync

@Suite("completions and man")
struct DocumentationCommandTests {
    @Test("completions SHELL prints the shell's script", arguments: Shell.allCases)
    func completions(shell: Shell) async throws {
        let cli = try CLIHarness()
        let result = await cli.run(["completions", shell.rawValue])
        #expect(result.code == 0)
        #expect(result.err == "")
        #expect(result.out == Completions.render(shell: shell, commands: CommandRegistry.specs, globalOptions: GlobalOptions.specs))
        #expect(!FileManager.default.fileExists(atPath: cli.databasePath))
    }

    @Test("an unknown shell is a usage error that names the shells")
    func unknownShell() async throws {
        let cli = try CLIHarness()
        let result = await cli.run(["completions", "tcsh"])
        #expect(result.code == 64)
        #expect(result.out == "")
        #expect(
            result.err == """
                Error: unknown shell 'tcsh'; one of: bash, zsh, fish
                Usage: gitbay-sync completions <shell>
                See 'gitbay-sync completions --help'.
                """)
        let missing = await cli.run(["completions"])
        #expect(missing.code == 64)
        #expect(missing.err.hasPrefix("Error: 'completions' needs <shell>: One of bash, zsh, fish."))
        let json = await cli.run(["completions", "ksh", "--json"])
        #expect(json.code == 64)
        let error = try #require(try json.json()["error"] as? [String: Any])
        #expect(error["kind"] as? String == "usage")
        #expect(error["message"] as? String == "unknown shell 'ksh'; one of: bash, zsh, fish")
    }

    @Test("man prints the manual page")
    func man() async throws {
        let cli = try CLIHarness()
        let result = await cli.run(["man"])
        #expect(result.code == 0)
        #expect(result.err == "")
        #expect(
            result.out + "\n"
                == ManPage.render(
                    commands: CommandRegistry.specs, globalOptions: GlobalOptions.specs, version: HelpText.version, date: HelpText.versionDate))
        #expect(result.out.contains("\\fBgitbay\\-sync completions\\fR \\%<\\fIshell\\fR>"))
        #expect(result.out.contains("\\fBgitbay\\-sync man\\fR\n"))
    }

    @Test("both have help, and are listed in the program's", arguments: [["completions", "--help"], ["man", "-h"], ["help", "completions"]])
    func help(arguments: [String]) async throws {
        let cli = try CLIHarness()
        let result = await cli.run(arguments)
        #expect(result.code == 0)
        #expect(result.out.hasPrefix("Usage: gitbay-sync \(arguments.first == "help" ? arguments[1] : arguments[0])"))
        let program = await cli.run(["--help"])
        #expect(program.out.contains("  completions "))
        #expect(program.out.contains("  man "))
    }

    @Test("man takes no argument")
    func manArgument() async throws {
        let cli = try CLIHarness()
        let result = await cli.run(["man", "gitbay-sync"])
        #expect(result.code == 64)
        #expect(result.err.hasPrefix("Error: unexpected argument 'gitbay-sync' for 'man'"))
    }
}
