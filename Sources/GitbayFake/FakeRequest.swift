/// One request the fake server answered (or deliberately did not), for tests to inspect.
public struct FakeRequest: Sendable {
    /// `GET` or `POST` (or whatever the client sent).
    public let method: String
    /// The path without the query, e.g. `/api/v1/cmd`.
    public let path: String
    /// The raw query string without `?`, nil when the target had none.
    public let query: String?
    /// The argv as sent (from the body or the query), `--json` included; empty if unreadable.
    public let argv: [String]
    /// The body's `stdin` field, nil when absent.
    public let stdin: String?
    /// The account the bearer token resolved to; nil when missing, unknown or revoked.
    public let user: String?
    /// The HTTP status sent; 0 when the connection was reset or held without an answer.
    public let status: Int
    /// The request's headers, names lower-cased.
    public let headers: [String: String]
    /// Whether the command (once `--json` is stripped) is one that changes state.
    public let isWrite: Bool

    public init(
        method: String, path: String, query: String?, argv: [String], stdin: String?,
        user: String?, status: Int, headers: [String: String], isWrite: Bool
    ) {
        self.method = method
        self.path = path
        self.query = query
        self.argv = argv
        self.stdin = stdin
        self.user = user
        self.status = status
        self.headers = headers
        self.isWrite = isWrite
    }
}
