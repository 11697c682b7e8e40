/// What a command prints on stdout, made once and rendered either as lines of text or, under
/// `--json`, as the JSON object docs/reference.md documents (`--json` shapes).
protocol CommandOutput {
    /// The `--json` form.
    var json: JSONValue { get }
    /// The text form, line by line.
    var text: [String] { get }
    /// `json` rendered; an output of many objects may write it without making `json` first.
    var renderedJSON: String { get }
}

extension CommandOutput {
    var renderedJSON: String { json.rendered() }
}

extension CommandRunner {
    /// Prints `output` as JSON under `--json`, else as text.
    func show(_ output: some CommandOutput) {
        if global.json {
            context.console.out(output.renderedJSON)
        } else {
            output.text.forEach(context.console.out)
        }
    }
}
