import Foundation

/// Turns each HTTP request into gitbay's answer: routing, authentication, the API limiter,
/// faults, the dispatcher and ETags. One lock turn per request, so every answer is consistent.
struct APIRouter: Sendable {
    /// The two API routes.
    enum Route: Sendable {
        /// `POST /api/v1/cmd`
        case command
        /// `GET /api/v1/read`
        case read
    }

    /// A request's command as sent, before authentication decides anything.
    struct Call: Sendable {
        var argv: [String] = []
        var stdin: String?
        /// Why the body (or query) could not be read; answered 400 after authentication.
        var malformed: String?
    }

    private struct Body: Decodable {
        let argv: [String]?
        let stdin: String?
    }

    let state: Guarded<FakeState>

    func reply(to request: HTTPRequest) -> HTTPReply {
        if request.path.hasPrefix("/_fake/") { return controlReply(to: request) }
        return state.withLock { state in route(request, in: &state) }
    }

    private func route(_ request: HTTPRequest, in state: inout FakeState) -> HTTPReply {
        let modes = state.modes
        if modes.isDown { return HTTPReply(action: .drop) }

        let route: Route? =
            switch (request.method, request.path) {
            case ("POST", "/api/v1/cmd"): .command
            case ("GET", "/api/v1/read"): .read
            default: nil
            }
        guard modes.apiEnabled, let route else {
            let response = HTTPResponse(
                status: 404, headers: [("Content-Type", "text/html; charset=utf-8")], body: Envelope.notFoundPage)
            state.record(Self.logEntry(request, call: Call(), user: nil, status: 404, isWrite: false))
            return HTTPReply(action: .respond(response), delay: modes.latency)
        }

        let call = Self.call(in: request, route: route)
        let bearer = Self.bearerToken(in: request)
        let user = bearer.flatMap { state.validToken($0)?.user }
        let argv = call.argv.filter { $0 != "--json" }
        let isWrite = GitbayCommand.parse(argv)?.command.changesState ?? false

        let action: HTTPReply.Action
        if let fault = state.takeFault(argv: argv, user: user) {
            action = faultAction(fault, request: request, route: route, call: call, bearer: bearer, in: &state)
        } else {
            action = .respond(answer(request, route: route, call: call, bearer: bearer, protocolVersion: 1, in: &state))
        }
        let status = if case .respond(let response) = action { response.status } else { 0 }
        state.record(Self.logEntry(request, call: call, user: user, status: status, isWrite: isWrite))
        let write = route == .command && isWrite ? state.writeStarted(GitbayCommand.parse(argv)?.command.name ?? "") : nil
        return HTTPReply(action: action, delay: modes.latency, write: write)
    }

    /// Gitbay's own answer to an API request.
    func answer(
        _ request: HTTPRequest, route: Route, call: Call, bearer: String?, protocolVersion: Int,
        in state: inout FakeState
    ) -> HTTPResponse {
        let json = ("Content-Type", "application/json")
        let challenge = ("WWW-Authenticate", "Bearer realm=\"gitbay api\"")
        guard let bearer else {
            return HTTPResponse(
                status: 401, headers: [json, challenge],
                body: Envelope.preDispatchError(
                    "missing bearer token; send Authorization: Bearer <token> (mint one with `token create`)",
                    protocolVersion: protocolVersion))
        }
        guard let token = state.authenticate(bearer) else {
            return HTTPResponse(
                status: 401, headers: [json, challenge],
                body: Envelope.preDispatchError("invalid or expired token", protocolVersion: protocolVersion))
        }
        if let malformed = call.malformed {
            return HTTPResponse(
                status: 400, headers: [json],
                body: Envelope.preDispatchError("malformed request body: \(malformed)", protocolVersion: protocolVersion))
        }
        let argv = call.argv.filter { $0 != "--json" }
        if let (status, message) = Self.refusal(of: argv, on: route) {
            return HTTPResponse(
                status: status, headers: [json], body: Envelope.preDispatchError(message, protocolVersion: protocolVersion))
        }
        let instant = ContinuousClock.now
        if state.modes.enforceRateLimits {
            // A write reaches this point on the command route only.
            let isWrite = GitbayCommand.parse(argv)?.command.changesState ?? false
            let wait = state.limits[token.user, default: AccountLimits(now: instant)].admit(isWrite: isWrite, at: instant)
            if let wait { return Self.rateLimited(retryAfter: wait, protocolVersion: protocolVersion) }
        }

        let caller = FakeState.Caller(user: token.user, scope: token.scope, apiToken: bearer)
        let outcome = state.dispatch(argv: argv, stdin: call.stdin, caller: caller, instant: instant)
        let body = Envelope.body(for: outcome, protocolVersion: protocolVersion)
        guard route == .read else { return HTTPResponse(status: outcome.status, headers: [json], body: body) }

        // Every dispatched answer on the read route is tagged, errors too.
        let tag = Self.entityTag(status: outcome.status, body: body, user: token.user)
        let headers = [json, ("Cache-Control", "private, no-cache"), ("ETag", tag)]
        if Self.matches(tag, request.headers["if-none-match"]) {
            return HTTPResponse(status: 304, headers: headers.filter { $0.0 != "Content-Type" })
        }
        return HTTPResponse(status: outcome.status, headers: headers, body: body)
    }

    /// The HTTP status and error for a command refused before dispatch (no `exit_code`):
    /// an empty argv on either route; on the read route an unknown command (404, as a server
    /// older than the command answers) or one that changes state (400).
    private static func refusal(of argv: [String], on route: Route) -> (status: Int, message: String)? {
        guard !argv.isEmpty else {
            return switch route {
            case .command: (400, "no command: the body needs \"argv\": [\"word\", ...]")
            case .read: (400, "no command: the query needs argv=word&argv=...")
            }
        }
        guard route == .read else { return nil }
        guard let (command, _) = GitbayCommand.parse(argv) else {
            return (404, FakeState.unknownCommandMessage(argv))
        }
        guard !command.changesState else {
            return (400, "`\(command.name)` changes state; send it with POST /api/v1/cmd")
        }
        return nil
    }

    static func rateLimited(retryAfter seconds: Int, protocolVersion: Int = 1) -> HTTPResponse {
        HTTPResponse(
            status: 429, headers: [("Content-Type", "application/json"), ("Retry-After", String(seconds))],
            body: Envelope.preDispatchError("rate limited; retry in \(seconds)s", protocolVersion: protocolVersion))
    }

    /// The command in the body (POST) or the query (GET).
    private static func call(in request: HTTPRequest, route: Route) -> Call {
        switch route {
        case .read:
            guard let values = request.queryValues("argv") else {
                return Call(malformed: "invalid percent-encoding in the query")
            }
            return Call(argv: values)
        case .command:
            if request.bodyExceededLimit {
                return Call(malformed: "request body is larger than \(HTTPConnection.bodyLimit) bytes")
            }
            do {
                let body = try JSONDecoder().decode(Body.self, from: Data(request.body))
                return Call(argv: body.argv ?? [], stdin: body.stdin)
            } catch {
                return Call(malformed: "expected {\"argv\": [...], \"stdin\": \"...\"}")
            }
        }
    }

    /// The token after exactly `Bearer `; nil when the header is missing or another scheme.
    private static func bearerToken(in request: HTTPRequest) -> String? {
        guard let value = request.headers["authorization"], value.hasPrefix("Bearer ") else { return nil }
        let token = String(value.dropFirst("Bearer ".count))
        return token.isEmpty ? nil : token
    }

    /// A strong tag over the status and the body, salted with the account, so two accounts
    /// never share one and an error's tag never equals a success's.
    private static func entityTag(status: Int, body: [UInt8], user: String) -> String {
        // FNV-1a, 64 bits: stable across runs and platforms, unlike `Hasher`.
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in Array(user.utf8) + [0] + Array(String(status).utf8) + [0] + body {
            hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3
        }
        let hex = String(hash, radix: 16)
        return "\"" + String(repeating: "0", count: 16 - hex.count) + hex + "\""
    }

    private static func matches(_ tag: String, _ ifNoneMatch: String?) -> Bool {
        guard let ifNoneMatch else { return false }
        return ifNoneMatch.split(separator: ",").contains { candidate in
            let trimmed = candidate.trimmingCharacters(in: .whitespaces)
            return trimmed == "*" || trimmed == tag || trimmed == "W/" + tag
        }
    }

    private static func logEntry(_ request: HTTPRequest, call: Call, user: String?, status: Int, isWrite: Bool) -> FakeRequest {
        FakeRequest(
            method: request.method, path: request.path, query: request.query, argv: call.argv, stdin: call.stdin,
            user: user, status: status, headers: request.headers, isWrite: isWrite)
    }
}
