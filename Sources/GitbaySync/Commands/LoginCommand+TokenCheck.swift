extension CommandRunner {
    /// Refuses an API token that cannot be one, before any request carries it: a header
    /// cannot hold a control character, and a token is printable ASCII.
    static func checkAPIToken(_ text: String) throws {
        let limit = InputLimit.apiToken
        let problem: String? =
            if text.contains(where: \.isWhitespace) {
                "contains spaces"
            } else if text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
                "contains a control character (a NUL, an escape or the like)"
            } else if !text.utf8.allSatisfy({ (0x21...0x7E).contains($0) }) {
                "contains characters outside printable ASCII"
            } else {
                nil
            }
        if let problem {
            throw CommandFailure("the API token \(problem); \(limit.advice)", exitCode: .dataError)
        }
        guard text.utf8.count <= limit.maximumBytes else { throw limit.tooLong(bytes: text.utf8.count) }
    }
}
