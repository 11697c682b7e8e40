/// What a command prints on stdout, made once and rendered either as lines of text or, under
/// `--json`, as the JSON object docs/reference.md documents (`--json` shapes).
protocol CommandOutput {
    /// The `--json` form.
    var json: JSONValue { get }
    /// The text form, line by line.
    var text: [String] { get }
}

extension CommandRunner {
    /// Prints `output` as JSON under `--json`, else as text.
    func show(_ output: some CommandOutput) {
        if global.json {
            printJSON(output.json)
        } else {
            output.text.forEach(context.console.out)
        }
    }
}
