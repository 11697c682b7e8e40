/// What running one command produced: the envelope's contents and the HTTP status.
struct CommandOutcome: Sendable {
    var exitCode: Int
    var data: JSONValue?
    var error: String?
    var status: Int

    static func success(_ data: JSONValue) -> CommandOutcome {
        CommandOutcome(exitCode: 0, data: data, error: nil, status: 200)
    }

    /// A failed command; the status follows gitbay's exit-code table.
    static func failure(exitCode: Int, _ message: String) -> CommandOutcome {
        CommandOutcome(exitCode: exitCode, data: nil, error: message, status: httpStatus(for: exitCode))
    }

    static func httpStatus(for exitCode: Int) -> Int {
        switch exitCode {
        case 0: 200
        case 2: 400
        case 3: 404
        case 4: 403
        default: 500
        }
    }
}
