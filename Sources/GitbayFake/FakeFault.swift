/// A misbehaviour the fake server plays instead of (or on top of) a normal answer.
///
/// Faults are injected with `FakeGitbayServer.inject(_:command:user:times:)` and consumed by the
/// next matching API requests. Unless a case says otherwise the command is **not** run: the
/// fault stands for something in front of gitbay (a proxy, a load balancer, a dead link).
public enum FakeFault: Sendable {
    /// Answers `status` with `body` verbatim and the given extra headers, e.g. a 502 with an
    /// HTML page or a 503 with `Retry-After`.
    case status(Int, body: String, headers: [String: String] = [:])
    /// Closes the connection without a reply.
    case reset
    /// Holds the connection open without answering, until the client gives up, the server
    /// stops or ten minutes pass.
    case hang
    /// Answers 200 with a body that is not JSON.
    case garbage
    /// Runs the command, then sends only the first half of its JSON envelope (with a matching
    /// `Content-Length`, so the HTTP exchange itself is complete).
    case truncatedJSON
    /// Runs the command and answers its envelope with this `protocol_version`.
    case protocolVersion(Int)
    /// Answers the API limiter's 429 with `Retry-After: retryAfter`.
    case rateLimited(retryAfter: Int)
    /// Answers the dispatcher's per-account write limit: exit 4 / 403, no `Retry-After`, the
    /// wait written as a Go duration (`12s`, `1m1s`).
    case writeLimited(seconds: Int)
}
