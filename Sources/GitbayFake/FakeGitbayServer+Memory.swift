/// What the server does with a request handed to it in memory (`FakeGitbayServer.exchange`):
/// what it would have sent on a socket, or how it would have left it.
public enum FakeExchange: Sendable {
    /// The answer: its status, header fields in sending order, and body.
    case response(status: Int, headers: [(name: String, value: String)], body: [UInt8])
    /// The connection reset without a reply.
    case reset
    /// The connection closed without a reply (the server is down, or going down).
    case drop
    /// No answer, ever: the caller gives up when it wants.
    case hang
}

extension FakeGitbayServer {
    /// Answers one request without a socket, as it answers one on its port: the same routes,
    /// state, faults, limits and request log. `target` is the path and query as sent, header
    /// names are lower-case. The server's latency is returned for the caller to wait, so a
    /// cancelled caller stops waiting at once.
    public func exchange(method: String, target: String, headers: [String: String], body: [UInt8]) -> (FakeExchange, delay: Duration) {
        guard !state.withLock({ $0.modes.isDown }) else { return (.drop, .zero) }
        let request = HTTPRequest(method: method, target: target, version: "HTTP/1.1", headers: headers, body: body, bodyExceededLimit: false)
        state.withLock { $0.answering(true) }
        let reply = APIRouter(state: state).reply(to: request)
        state.withLock { state in
            if let write = reply.write { state.writeAnswered(write, after: reply.delay) }
            state.answering(false)
        }
        switch reply.action {
        case .respond(let response): return (.response(status: response.status, headers: response.headers, body: response.body), reply.delay)
        case .reset: return (.reset, reply.delay)
        case .drop: return (.drop, reply.delay)
        case .hang: return (.hang, reply.delay)
        }
    }
}
