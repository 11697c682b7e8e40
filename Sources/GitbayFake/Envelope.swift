/// Gitbay's JSON envelope and the other bodies the fake sends.
enum Envelope {
    /// `{"protocol_version":1,"data":...,"exit_code":0}` or `{"protocol_version":1,"error":"...","exit_code":N}`.
    static func body(for outcome: CommandOutcome, protocolVersion: Int = 1) -> [UInt8] {
        var members: [(String, JSONValue)] = [("protocol_version", .number(protocolVersion))]
        if let data = outcome.data { members.append(("data", data)) }
        if let error = outcome.error { members.append(("error", .string(error))) }
        members.append(("exit_code", .number(outcome.exitCode)))
        return Array(JSONValue.object(members).serialized.utf8)
    }

    /// An error raised before dispatch (401, a malformed body or a refused argv, 429): no `exit_code`.
    static func preDispatchError(_ message: String, protocolVersion: Int = 1) -> [UInt8] {
        Array(JSONValue.object([("protocol_version", .number(protocolVersion)), ("error", .string(message))]).serialized.utf8)
    }

    /// The site's HTML 404 page, which is what gitbay serves for any route it does not know
    /// (and for `/api/...` when the API is disabled).
    static let notFoundPage = Array(
        """
        <!DOCTYPE html>
        <html lang="en">
        <head><meta charset="utf-8"><title>Page not found - gitbay</title></head>
        <body><main><h1>404</h1><p>The page you are looking for does not exist.</p></main></body>
        </html>

        """.utf8)

    /// What `FakeFault.garbage` answers: HTML from something that is not gitbay, labelled as JSON.
    static let garbage = Array("<html><body>Welcome to the guest network. Please sign in.</body></html>\n".utf8)
}
