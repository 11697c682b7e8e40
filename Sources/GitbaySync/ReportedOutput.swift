/// An output with nothing to it but its two forms, for a command whose text is a sentence or
/// two.
struct ReportedOutput: CommandOutput {
    let json: JSONValue
    let text: [String]
}
