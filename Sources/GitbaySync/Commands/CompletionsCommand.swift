/// `completions <shell>`.
struct CompletionsCommand: CommandDefinition {
    static let shellArgument = CommandSpec.Argument(
        name: "shell", optional: false, help: "One of \(Shell.allCases.map(\.rawValue).joined(separator: ", "))."
    )

    static let spec = CommandSpec(
        words: ["completions"], group: .shellAndReference, arguments: [shellArgument], options: [],
        summary: "Print the shell completion script for bash, zsh or fish.",
        discussion: """
            Prints a script that completes the commands, their options, the global options and the
            signed-in accounts (read with `gitbay-sync accounts --json` as you type). `make install`
            puts each where its shell looks; the examples put them there by hand.
            """,
        examples: [
            .init("Complete gitbay-sync in bash", ["completions", "bash"], after: "> ~/.local/share/bash-completion/completions/gitbay-sync"),
            .init("In zsh (~/.zfunc being a folder on your fpath)", ["completions", "zsh"], after: "> ~/.zfunc/_gitbay-sync"),
            .init("In fish", ["completions", "fish"], after: "> ~/.config/fish/completions/gitbay-sync.fish"),
        ]
    )

    let shell: Shell

    init(shell: Shell) {
        self.shell = shell
    }

    init(_ input: CommandInput) throws(UsageError) {
        shell = try Shell.named(try input.required(Self.shellArgument))
    }

    func run(_ runner: CommandRunner) async throws -> ExitCode {
        runner.context.console.out(
            Completions.render(shell: shell, commands: CommandRegistry.specs, globalOptions: GlobalOptions.specs)
        )
        return .success
    }
}
