import GitbaySupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// How a command travels: the request for each route, retries, classification of the answer
/// and decoding of its `data`.
extension GitbayClient {
    /// The two routes of the API.
    enum Call {
        /// `GET /api/v1/read?argv=...`, for read-only commands.
        case read(argv: [String], ifNoneMatch: String?)
        /// `POST /api/v1/cmd` with `{"argv": [...], "stdin": "..."}`, for commands that write.
        case write(argv: [String], stdin: Secret?)
    }

    /// An answer that is not an error: `304`, or a response whose `data` may be decoded.
    enum Reply {
        case notModified(status: Int)
        case answer(HTTPResponse)
    }

    /// The request body of `POST /api/v1/cmd`.
    private struct CommandBody: Encodable {
        let argv: [String]
        let stdin: String?
    }

    /// Sends `call` and returns a successful answer; a `304` here is malformed.
    func answer(to call: Call, command: [String]) async throws(GitbayError) -> HTTPResponse {
        try await awaiting { startAnswering(call, command: command, completion: $0) }
    }

    /// `answer(to:command:)`, started: `completion` gets the successful answer, or the failure.
    func startAnswering(
        _ call: Call, command: [String], completion: @escaping @Sendable (Result<HTTPResponse, GitbayError>) -> Void
    ) -> TransportTransfer {
        start(call, command: command) { [self] reply in
            completion(Result { () throws(GitbayError) in try answer(reply.get(), command: command) })
        }
    }

    /// A successful answer; a `304` here is malformed.
    func answer(_ reply: Reply, command: [String]) throws(GitbayError) -> HTTPResponse {
        switch reply {
        case .answer(let response):
            return response
        case .notModified(let status):
            throw GitbayError(kind: .malformed, account: accountName, command: command, httpStatus: status)
        }
    }

    /// What one exchange, sent with `left` of the deadline, answered.
    func classify(_ result: Result<HTTPResponse, TransportError>, command: [String], within left: Duration?) throws(GitbayError) -> Reply {
        switch result {
        case .success(let response): return try reply(to: response, command: command)
        case .failure(let error):
            throw GitbayError(kind: .transport(deadlineTimeout(error, left: left) ?? error), account: accountName, command: command)
        }
    }

    /// A timeout that ran out because the deadline cut it short, as the deadline's; nil for any
    /// other error, and for a timeout the deadline left whole.
    private func deadlineTimeout(_ error: TransportError, left: Duration?) -> TransportError? {
        guard let left, let deadline = configuration.deadline, case .timedOut(let phase, _) = error else { return nil }
        let whole = phase == .connect ? configuration.transport.connectTimeout : configuration.transport.requestTimeout
        return left < whole ? .timedOut(.deadline, limit: deadline) : nil
    }

    /// The answer `response` gives, or the error it says.
    private func reply(to response: HTTPResponse, command: [String]) throws(GitbayError) -> Reply {
        logger.debug("gitbay.response", ["gitbay.command": command.joined(separator: " "), "http.status": String(response.status)])
        switch ServerAnswer(status: response.status, headers: response.headers, body: response.body) {
        case .success:
            return .answer(response)
        case .notModified:
            return .notModified(status: response.status)
        case .failure(let kind, let exitCode, let message):
            throw GitbayError(
                kind: kind, account: accountName, command: command, httpStatus: response.status,
                exitCode: exitCode, serverMessage: message.map { redacting(sentSecrets, in: $0) }
            )
        }
    }

    /// The limits of one attempt, with `left` of the deadline.
    func limits(within left: Duration?) -> TransportConfiguration {
        // One copy, its bounds changed in place: each copy counts a reference for each string.
        var limits = configuration.transport
        limits.responseHeaders = Self.responseHeaders
        if let left { (limits.connectTimeout, limits.requestTimeout) = (min(limits.connectTimeout, left), min(limits.requestTimeout, left)) }
        return limits
    }

    func makeRequest(_ call: Call) -> HTTPRequest {
        var headers: [(name: String, value: String)] = [
            ("Authorization", "Bearer " + apiToken.exposedValue),
            ("Accept", "application/json"),
        ]
        switch call {
        case .read(let argv, let etag):
            if let etag { headers.append(("If-None-Match", etag)) }
            return HTTPRequest(method: "GET", url: Self.readURL(instance, argv: argv), headers: headers)
        case .write(let argv, let stdin):
            headers.append(("Content-Type", "application/json"))
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.withoutEscapingSlashes]
            let body: Data
            do {
                body = try encoder.encode(CommandBody(argv: argv, stdin: stdin?.exposedValue))
            } catch {
                preconditionFailure("encoding an array of strings cannot fail: \(error)")
            }
            return HTTPRequest(method: "POST", url: instance.url(path: "/api/v1/cmd"), headers: headers, body: Array(body))
        }
    }

    /// Decodes the answer's `data`; nil when the server omitted it.
    func decode<Payload: Decodable>(_ type: Payload.Type, from response: HTTPResponse, command: [String]) throws(GitbayError) -> Payload? {
        do {
            return try JSONDecoder().decode(DataEnvelope<Payload>.self, from: Data(response.body)).data
        } catch {
            throw GitbayError(kind: .malformed, account: accountName, command: command, httpStatus: response.status)
        }
    }

    func metadata(of error: GitbayError, command: String, attempt: Int) -> [String: String] {
        var metadata = ["gitbay.command": command, "request.attempt": String(attempt), "error.kind": error.kind.logName]
        if let status = error.httpStatus { metadata["http.status"] = String(status) }
        if let exitCode = error.exitCode { metadata["gitbay.exit_code"] = String(exitCode) }
        return metadata
    }

    /// `text` with any of `secrets` replaced, in case a server echoes one.
    private func redacting(_ secrets: [Secret], in text: String) -> String {
        secrets.reduce(text) { text, secret in
            secret.exposedValue.isEmpty ? text : text.replacing(secret.exposedValue, with: "<redacted>")
        }
    }

    /// `base?argv=…&argv=…`, each word percent-encoded but for RFC 3986's unreserved characters.
    /// Built as bytes with room for all of it, made a string once: appending to a string piece
    /// by piece costs more than the bytes themselves.
    static func readURL(_ base: String, argv: [String]) -> String {
        readURL(argv: argv, baseCount: base.utf8.count) { $0.append(utf8Of: base) }
    }

    /// The instance's read route with `argv`.
    static func readURL(_ instance: InstanceURL, argv: [String]) -> String {
        readURL(argv: argv, baseCount: instance.host.utf8.count + 32) { url in
            instance.append(to: &url)
            url.append(utf8Of: "/api/v1/read")
        }
    }

    private static func readURL(argv: [String], baseCount: Int, base: (inout [UInt8]) -> Void) -> String {
        var url: [UInt8] = []
        url.reserveCapacity(argv.reduce(baseCount) { $0 + 6 + 3 * $1.utf8.count })
        base(&url)
        for (index, word) in argv.enumerated() {
            url.append(utf8Of: index == 0 ? "?argv=" : "&argv=")
            if word.utf8.allSatisfy(isUnreserved) {
                url.append(utf8Of: word)
                continue
            }
            for byte in word.utf8 {
                if isUnreserved(byte) {
                    url.append(byte)
                } else {
                    url.append(UInt8(ascii: "%"))
                    url.append(hexDigit(byte >> 4))
                    url.append(hexDigit(byte & 0x0F))
                }
            }
        }
        return String(decoding: url, as: UTF8.self)
    }

    private static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
            true
        default: false
        }
    }

    private static func hexDigit(_ value: UInt8) -> UInt8 {
        value < 10 ? UInt8(ascii: "0") + value : UInt8(ascii: "A") + value - 10
    }
}
