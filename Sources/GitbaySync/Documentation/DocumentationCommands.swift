extension CommandTable {
    /// The commands that print the documentation made from this table.
    static let documentationCommands: [CommandSpec] = [
        CommandSpec(
            words: ["completions"],
            arguments: [.init(name: "shell", optional: false, help: "One of \(Shell.allCases.map(\.rawValue).joined(separator: ", ")).")],
            options: [], summary: "Print the shell completion script for bash, zsh or fish.",
            discussion: """
                Prints a script that completes the commands, their options, the global options and the
                signed-in accounts (read with `gitbay-sync accounts --json` as you type). `make install`
                puts each where its shell looks; by hand, for example:
                  gitbay-sync completions bash > ~/.local/share/bash-completion/completions/gitbay-sync
                  gitbay-sync completions zsh > ~/.zfunc/_gitbay-sync   (a folder on your fpath)
                  gitbay-sync completions fish > ~/.config/fish/completions/gitbay-sync.fish
                """,
            build: { parsed throws(UsageError) in .completions(try Shell.named(parsed.argument(0)!)) }
        ),
        CommandSpec(
            words: ["man"], arguments: [], options: [], summary: "Print the manual page gitbay-sync(1) in roff.",
            discussion: """
                The same commands, options and exit codes as --help, as a manual page. `make install`
                installs it; to read it without installing: gitbay-sync man | man -l -
                """,
            build: { _ throws(UsageError) in .man }
        ),
    ]
}

extension CommandRunner {
    func printCompletions(_ shell: Shell) -> ExitCode {
        context.console.out(Completions.render(shell: shell, commands: CommandTable.all, globalOptions: GlobalOption.all))
        return .success
    }

    func printManPage() -> ExitCode {
        let page = ManPage.render(commands: CommandTable.all, globalOptions: GlobalOption.all, version: HelpText.version)
        context.console.out(String(page.dropLast()))
        return .success
    }
}
