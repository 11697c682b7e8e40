import GitbayReconcile

/// The accounts a command reconciled on its way, as the commands that change state report
/// them: `accounts` and `ok` in JSON; the text is the command's own.
struct ReconciledOutput: CommandOutput {
    /// The command's own JSON fields, before `accounts` and `ok`.
    var fields: [(String, JSONValue)]
    let outcomes: [SaidOutcome]
    var text: [String]
    /// Fields a later version added, after `ok`: keys are only ever added at the end.
    var laterFields: [(String, JSONValue)] = []

    var json: JSONValue {
        .object(
            fields + [("accounts", .array(outcomes.map(\.json))), ("ok", .bool(!outcomes.contains(where: \.isFailure)))]
                + laterFields)
    }
}
