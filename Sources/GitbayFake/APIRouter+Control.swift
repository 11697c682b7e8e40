import Dispatch

/// The fake's own control routes, for scripts that cannot call the Swift API (the benchmark).
///
/// Always served, never recorded, never delayed, never faulted, no authentication:
/// - `GET /_fake/stats`:
///   `{"requests":N,"reads":N,"writes":N,"moves":N,"connections":N,"mostAnswering":N,"mostWritesAnswering":N,
///   "writeSpans":[{"command","start","end"}],"devices":[{"id","owner","label","token"}]}`,
///   counting API requests, row moves and accepted TCP connections (control routes' own
///   included, down or not) since the start or the last reset, and the most requests being
///   answered at once (from reading one to its reply being ready, latency included; this one
///   included), the most writes (command-route requests that change state) among them, and each
///   write's span (its command, and when its answering started and ended, in microseconds since
///   1970 by the system's clock, so that spans of several servers compare);
///   `token` is the first 8 bytes, a cut character written as `device list` writes it.
/// - `POST /_fake/reset-stats`: zeroes the counters, the connection count too, and clears the
///   request log (not the deletion and move logs).
/// - `POST /_fake/down?seconds=N`: goes down (every connection closed unanswered) for N
///   seconds (1 to 60), then comes back with its state intact, for a demo of an outage.
/// - `POST /_fake/ssh`: runs a command as over SSH, for the tests' SSH front (APIRouter+SSH).
/// Like every route, they are unreachable while the server is down.
extension APIRouter {
    func controlReply(to request: HTTPRequest) -> HTTPReply {
        let json = ("Content-Type", "application/json")
        let response: HTTPResponse = state.withLock { state in
            switch (request.method, request.path) {
            case ("GET", "/_fake/stats"):
                return HTTPResponse(status: 200, headers: [json], body: Array(Self.stats(of: state).serialized.utf8))
            case ("POST", "/_fake/down"):
                let seconds =
                    request.query.flatMap { query in
                        query.split(separator: "&").first { $0.hasPrefix("seconds=") }.flatMap { Int($0.dropFirst(8)) }
                    } ?? 0
                guard (1...60).contains(seconds) else {
                    let body = JSONValue.object([("error", .string("give ?seconds=N, 1 to 60"))])
                    return HTTPResponse(status: 400, headers: [json], body: Array(body.serialized.utf8))
                }
                state.modes.isDown = true
                let shared = self.state
                DispatchQueue.global().asyncAfter(deadline: .now() + .seconds(seconds)) {
                    shared.withLock { $0.modes.isDown = false }
                }
                let body = JSONValue.object([("status", .string("down")), ("seconds", .number(seconds))])
                return HTTPResponse(status: 200, headers: [json], body: Array(body.serialized.utf8))
            case ("POST", "/_fake/ssh"):
                return Self.sshReply(to: request, in: &state)
            case ("POST", "/_fake/reset-stats"):
                state.stats = FakeState.Stats()
                state.log.removeAll()
                let body = JSONValue.object([("status", .string("reset"))])
                return HTTPResponse(status: 200, headers: [json], body: Array(body.serialized.utf8))
            default:
                return HTTPResponse(
                    status: 404, headers: [("Content-Type", "text/html; charset=utf-8")], body: Envelope.notFoundPage)
            }
        }
        return HTTPReply(action: .respond(response))
    }

    /// One write's span in `GET /_fake/stats`.
    private static func json(_ span: FakeState.WriteSpan) -> JSONValue {
        .object([
            ("command", .string(span.command)),
            ("start", .number(span.startMicroseconds)),
            ("end", .number(span.endMicroseconds)),
        ])
    }

    /// The body of `GET /_fake/stats`.
    private static func stats(of state: FakeState) -> JSONValue {
        let devices = state.devices.map { row -> JSONValue in
            .object([
                ("id", .number(row.id)),
                ("owner", .string(row.owner)),
                ("label", .string(row.label)),
                ("token", .string(GoText.jsonString(utf8: row.token.utf8.prefix(FakeState.shownTokenBytes)))),
            ])
        }
        return .object([
            ("requests", .number(state.stats.requests)),
            ("reads", .number(state.stats.reads)),
            ("writes", .number(state.stats.writes)),
            ("moves", .number(state.stats.moves)),
            ("connections", .number(state.stats.connections)),
            ("mostAnswering", .number(state.stats.mostAnswering)),
            ("mostWritesAnswering", .number(state.stats.mostWritesAnswering)),
            ("writeSpans", .array(state.stats.writeSpans.map(Self.json))),
            ("devices", .array(devices)),
        ])
    }
}
