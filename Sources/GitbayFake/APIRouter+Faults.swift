/// How each injected fault replaces (or damages) gitbay's answer.
extension APIRouter {
    func faultAction(
        _ fault: FakeFault, request: HTTPRequest, route: Route, call: Call, bearer: String?,
        in state: inout FakeState
    ) -> HTTPReply.Action {
        switch fault {
        case .status(let status, let body, let headers):
            var fields = headers.sorted { $0.key < $1.key }.map { (name: $0.key, value: $0.value) }
            if !headers.keys.contains(where: { $0.lowercased() == "content-type" }) {
                fields.insert(("Content-Type", Self.contentType(guessedFrom: body)), at: 0)
            }
            return .respond(HTTPResponse(status: status, headers: fields, body: Array(body.utf8)))
        case .reset:
            return .reset
        case .hang:
            return .hang
        case .garbage:
            return .respond(
                HTTPResponse(
                    status: 200, headers: [("Content-Type", "application/json")], body: Envelope.garbage))
        case .truncatedJSON:
            var response = answer(request, route: route, call: call, bearer: bearer, protocolVersion: 1, in: &state)
            response.body = Array(response.body.prefix(response.body.count / 2))
            return .respond(response)
        case .protocolVersion(let version):
            return .respond(answer(request, route: route, call: call, bearer: bearer, protocolVersion: version, in: &state))
        case .rateLimited(let seconds):
            return .respond(Self.rateLimited(retryAfter: seconds))
        case .writeLimited(let seconds):
            let outcome = CommandOutcome.failure(exitCode: 4, FakeState.writeLimitMessage(wait: .seconds(seconds)))
            return .respond(
                HTTPResponse(
                    status: outcome.status, headers: [("Content-Type", "application/json")],
                    body: Envelope.body(for: outcome)))
        }
    }

    private static func contentType(guessedFrom body: String) -> String {
        if body.hasPrefix("{") || body.hasPrefix("[") { return "application/json" }
        if body.hasPrefix("<") { return "text/html; charset=utf-8" }
        return "text/plain; charset=utf-8"
    }
}
