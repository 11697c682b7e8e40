import GitbayReconcile

/// What a command prints on stdout, made once and rendered either as lines of text or, under
/// `--json`, as the JSON object the README documents.
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

/// The accounts a command reconciled on its way, as the commands that change state report
/// them: `accounts` and `ok` in JSON; the text is the command's own.
struct ReconciledOutput: CommandOutput {
    /// The command's own JSON fields, before `accounts` and `ok`.
    var fields: [(String, JSONValue)]
    let outcomes: [AccountOutcome]
    var text: [String]

    var json: JSONValue {
        .object(fields + [("accounts", .array(outcomes.map(\.json))), ("ok", .bool(!outcomes.contains(where: \.isFailure)))])
    }
}

/// An output with nothing to it but its two forms, for a command whose text is a sentence or
/// two.
struct ReportedOutput: CommandOutput {
    let json: JSONValue
    let text: [String]
}
