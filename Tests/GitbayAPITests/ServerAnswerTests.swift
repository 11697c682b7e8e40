import TestSupport
import Testing

@testable import GitbayAPI
@testable import GitbaySupport

/// One row of the error model: an HTTP answer and what it must mean.
struct AnswerCase: Sendable, CustomTestStringConvertible {
    let name: String
    let status: Int
    let headers: [String: String]
    let body: String
    let expected: ServerAnswer

    init(_ name: String, _ status: Int, headers: [String: String] = [:], _ body: String, _ expected: ServerAnswer) {
        self.name = name
        self.status = status
        self.headers = headers
        self.body = body
        self.expected = expected
    }

    var testDescription: String { name }
}

@Suite("ServerAnswer")
struct ServerAnswerTests {
    static let cases: [AnswerCase] = [
        AnswerCase("200 ok", 200, #"{"protocol_version":1,"data":{"username":"alice"},"exit_code":0}"#, .success),
        AnswerCase(
            "200 with unknown fields and stderr", 200,
            #"{"protocol_version":1,"data":[],"exit_code":0,"stderr":"note","extra":{"x":1}}"#, .success),
        AnswerCase("200 with data omitted", 200, #"{"protocol_version":1,"exit_code":0}"#, .success),
        AnswerCase("304 empty body", 304, "", .notModified),
        AnswerCase(
            "401 missing bearer token, no exit_code", 401,
            headers: ["www-authenticate": #"Bearer realm="gitbay api""#],
            #"{"protocol_version":1,"error":"missing bearer token; send Authorization: Bearer <token>"}"#,
            .failure(.authFailed, exitCode: nil, message: "missing bearer token; send Authorization: Bearer <token>")),
        AnswerCase(
            "401 invalid or expired token", 401, #"{"protocol_version":1,"error":"invalid or expired token"}"#,
            .failure(.authFailed, exitCode: nil, message: "invalid or expired token")),
        AnswerCase("401 from a proxy as HTML", 401, "<html>401</html>", .failure(.authFailed, exitCode: nil, message: nil)),
        AnswerCase(
            "403 read-only token", 403,
            #"{"protocol_version":1,"error":"this token is read-only; mint one with --scope full","exit_code":4}"#,
            .failure(.readOnlyToken, exitCode: 4, message: "this token is read-only; mint one with --scope full")),
        AnswerCase(
            "403 write limit, seconds", 403,
            #"{"protocol_version":1,"error":"too many writes: 60 a minute per account; try again in 12s","exit_code":4}"#,
            .failure(
                .writeLimited(retryAfter: .seconds(12)), exitCode: 4,
                message: "too many writes: 60 a minute per account; try again in 12s")),
        AnswerCase(
            "403 write limit, minutes and seconds", 403,
            #"{"protocol_version":1,"error":"too many writes: 60 a minute per account; try again in 1m30s","exit_code":4}"#,
            .failure(
                .writeLimited(retryAfter: .seconds(90)), exitCode: 4,
                message: "too many writes: 60 a minute per account; try again in 1m30s")),
        AnswerCase(
            "403 write limit, fractional seconds", 403,
            #"{"protocol_version":1,"error":"too many writes: 60 a minute per account; try again in 2.5s","exit_code":4}"#,
            .failure(
                .writeLimited(retryAfter: .milliseconds(2500)), exitCode: 4,
                message: "too many writes: 60 a minute per account; try again in 2.5s")),
        AnswerCase(
            "403 disabled account", 403, #"{"protocol_version":1,"error":"account is disabled","exit_code":4}"#,
            .failure(.denied, exitCode: 4, message: "account is disabled")),
        AnswerCase(
            "429 with Retry-After, no exit_code", 429, headers: ["retry-after": "7"],
            #"{"protocol_version":1,"error":"rate limited; retry in 7s"}"#,
            .failure(.rateLimited(retryAfter: .seconds(7)), exitCode: nil, message: "rate limited; retry in 7s")),
        AnswerCase(
            "429 without Retry-After", 429, #"{"protocol_version":1,"error":"rate limited"}"#,
            .failure(.rateLimited(retryAfter: nil), exitCode: nil, message: "rate limited")),
        AnswerCase(
            "503 with Retry-After", 503, headers: ["retry-after": "2"],
            #"{"protocol_version":1,"error":"busy","exit_code":1}"#,
            .failure(.rateLimited(retryAfter: .seconds(2)), exitCode: 1, message: "busy")),
        AnswerCase("503 without Retry-After", 503, "<html>unavailable</html>", .failure(.serverFailure, exitCode: nil, message: nil)),
        AnswerCase("502 HTML from a proxy", 502, "<html>bad gateway</html>", .failure(.serverFailure, exitCode: nil, message: nil)),
        AnswerCase("504 gateway timeout", 504, "", .failure(.serverFailure, exitCode: nil, message: nil)),
        AnswerCase(
            "404 no such device, exit 3", 404, #"{"protocol_version":1,"error":"no such device; see device list","exit_code":3}"#,
            .failure(.notFound, exitCode: 3, message: "no such device; see device list")),
        AnswerCase(
            "404 HTML page: the API is off", 404, "<!DOCTYPE html><html><body>Page not found</body></html>",
            .failure(.notJSON, exitCode: nil, message: nil)),
        AnswerCase(
            "404 unknown command on GET /read, exit 2", 404,
            #"{"protocol_version":1,"error":"unknown command","exit_code":2}"#,
            .failure(.usage, exitCode: 2, message: "unknown command")),
        AnswerCase(
            "400 usage, exit 2", 400, #"{"protocol_version":1,"error":"device token is too long","exit_code":2}"#,
            .failure(.usage, exitCode: 2, message: "device token is too long")),
        AnswerCase(
            "400 malformed body before dispatch, no exit_code", 400, #"{"protocol_version":1,"error":"malformed request body"}"#,
            .failure(.usage, exitCode: nil, message: "malformed request body")),
        AnswerCase(
            "500 push disabled, exit 1", 500,
            #"{"protocol_version":1,"error":"this instance does not send push notifications ([push] enabled = false); ask an admin","exit_code":1}"#,
            .failure(
                .pushDisabled, exitCode: 1,
                message: "this instance does not send push notifications ([push] enabled = false); ask an admin")),
        AnswerCase(
            "500 store failure, exit 1", 500, #"{"protocol_version":1,"error":"database is locked","exit_code":1}"#,
            .failure(.serverFailure, exitCode: 1, message: "database is locked")),
        AnswerCase(
            "500 protocol error, exit 5", 500, #"{"protocol_version":1,"error":"protocol error","exit_code":5}"#,
            .failure(.serverFailure, exitCode: 5, message: "protocol error")),
        AnswerCase("500 HTML", 500, "<html>oops</html>", .failure(.serverFailure, exitCode: nil, message: nil)),
        AnswerCase("200 HTML page", 200, "<html><body>gitbay</body></html>", .failure(.notJSON, exitCode: nil, message: nil)),
        AnswerCase("200 garbage", 200, "\u{1}\u{2}garbage", .failure(.notJSON, exitCode: nil, message: nil)),
        AnswerCase("200 empty body", 200, "", .failure(.notJSON, exitCode: nil, message: nil)),
        AnswerCase(
            "200 truncated JSON", 200, #"{"protocol_version":1,"data":[{"id":1,"lab"#,
            .failure(.malformed, exitCode: nil, message: nil)),
        AnswerCase("200 JSON that is not an envelope", 200, "[1,2,3]", .failure(.malformed, exitCode: nil, message: nil)),
        AnswerCase(
            "200 without protocol_version", 200, #"{"data":{},"exit_code":0}"#,
            .failure(.malformed, exitCode: nil, message: nil)),
        AnswerCase(
            "200 protocol_version 2", 200, #"{"protocol_version":2,"data":{},"exit_code":0}"#,
            .failure(.protocolVersion(2), exitCode: 0, message: nil)),
        AnswerCase(
            "400 protocol_version 2 error", 400, #"{"protocol_version":2,"error":"x"}"#,
            .failure(.protocolVersion(2), exitCode: nil, message: "x")),
        AnswerCase(
            "401 from a newer protocol is still an auth failure", 401, #"{"protocol_version":2,"error":"no"}"#,
            .failure(.authFailed, exitCode: nil, message: "no")),
        AnswerCase(
            "429 from a newer protocol still honours Retry-After", 429, headers: ["retry-after": "7"],
            #"{"protocol_version":2,"error":"slow down"}"#,
            .failure(.rateLimited(retryAfter: .seconds(7)), exitCode: nil, message: "slow down")),
    ]

    @Test("an HTTP answer maps to its error kind", arguments: cases)
    func mapping(_ row: AnswerCase) {
        let answer = ServerAnswer(status: row.status, headers: row.headers, body: Array(row.body.utf8))
        #expect(answer == row.expected)
    }

    @Test(
        "Retry-After is read as delta-seconds only",
        arguments: [
            ("7", Duration?.some(.seconds(7))), (" 120 ", .some(.seconds(120))), ("0", .some(.zero)),
            ("-1", nil), ("1.5", nil), ("Wed, 21 Oct 2026 07:28:00 GMT", nil), ("", nil),
        ])
    func retryAfter(_ value: String, _ expected: Duration?) {
        #expect(ServerAnswer.parseRetryAfter(value) == expected)
    }

    @Test(
        "a Retry-After longer than an hour, or too large to count, is read as an hour",
        arguments: [
            ("3599", Duration.seconds(3599)), ("3600", .seconds(3600)), ("3601", .seconds(3600)), ("99999999999", .seconds(3600)),
            ("10000000000000000", .seconds(3600)), ("9223372036854775807", .seconds(3600)), ("9223372036854775808", .seconds(3600)),
            (String(repeating: "9", count: 400), .seconds(3600)), ("0003600", .seconds(3600)), ("00000000000000000000042", .seconds(42)),
        ])
    func longRetryAfter(_ value: String, _ expected: Duration) {
        #expect(ServerAnswer.parseRetryAfter(value) == expected)
        let answer = ServerAnswer(status: 429, headers: ["retry-after": value], body: [])
        #expect(answer == .failure(.rateLimited(retryAfter: expected), exitCode: nil, message: nil))
    }
}
