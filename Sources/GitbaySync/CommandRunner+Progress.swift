extension CommandRunner {
    /// Says on standard error what a slow step is doing, when a person watches it there: a
    /// terminal, and text output. Nothing of it reaches a pipe, a log or `--json`.
    func progress(_ line: String) {
        guard context.console.errorIsTerminal, !global.json else { return }
        context.console.err(line)
    }
}
