/// `man`.
struct ManCommand: PlainCommand {
    static let spec = CommandSpec(
        words: ["man"], group: .shellAndReference, arguments: [], options: [], summary: "Print the manual page gitbay-sync(1) in roff.",
        discussion: """
            The same commands, options and exit codes as --help, as a manual page. `make install`
            installs it; to read it without installing: gitbay-sync man | man -l -
            """,
        examples: [
            .init("Read the manual page without installing it", ["man"], after: "| man -l -"),
            .init("Install it for yourself", ["man"], after: "> ~/.local/share/man/man1/gitbay-sync.1"),
        ]
    )

    func run(_ runner: CommandRunner) async throws -> ExitCode {
        let page = ManPage.render(
            commands: CommandRegistry.specs, globalOptions: GlobalOptions.specs, version: HelpText.version, date: HelpText.versionDate)
        runner.context.console.out(String(page.dropLast()))
        return .success
    }
}
