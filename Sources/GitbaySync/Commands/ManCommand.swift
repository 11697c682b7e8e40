/// `man`.
struct ManCommand: PlainCommand {
    static let spec = CommandSpec(
        words: ["man"], group: .shellAndReference, arguments: [], options: [], summary: "Print the manual page gitbay-sync(1) in roff.",
        discussion: """
            The same commands, options and exit codes as --help, as a manual page. `make install`
            installs it; to read it without installing: gitbay-sync man | man -l -
            """
    )

    func run(_ runner: CommandRunner) async throws -> ExitCode {
        let page = ManPage.render(commands: CommandRegistry.specs, globalOptions: GlobalOptions.specs, version: HelpText.version)
        runner.context.console.out(String(page.dropLast()))
        return .success
    }
}
