import TestSupport
import Testing

@testable import GitbayAPI
@testable import GitbaySupport

/// One row of the retry schedule: the error after a given attempt and the wait allowed before the next.
struct RetryCase: Sendable, CustomTestStringConvertible {
    let name: String
    let attempt: Int
    let kind: GitbayError.Kind
    let httpStatus: Int?
    /// The allowed delay, or nil when the policy must give up.
    let expected: ClosedRange<Duration>?

    init(_ name: String, attempt: Int = 1, _ kind: GitbayError.Kind, status: Int? = nil, _ expected: ClosedRange<Duration>?) {
        self.name = name
        self.attempt = attempt
        self.kind = kind
        self.httpStatus = status
        self.expected = expected
    }

    var testDescription: String { name }
}

@Suite("RetryPolicy")
struct RetryPolicyTests {
    /// The defaults: 3 attempts, base 0.5 s, cap 8 s, Retry-After cap 60 s, equal jitter.
    static let policy = RetryPolicy()
    static let randoms = [0.0, 0.25, 0.5, 0.999_999]
    static let connectRefused = GitbayError.Kind.transport(.connectFailed(.refused, detail: "refused"))

    static let cases: [RetryCase] = [
        RetryCase("connect failure after attempt 1: 250-500ms", connectRefused, .milliseconds(250) ... .milliseconds(500)),
        RetryCase("connect failure after attempt 2: 0.5-1s", attempt: 2, connectRefused, .milliseconds(500) ... .seconds(1)),
        RetryCase("connect failure after the last attempt: give up", attempt: 3, connectRefused, nil),
        RetryCase("connect timeout", .transport(.timedOut(.connect, limit: .seconds(10))), .milliseconds(250) ... .milliseconds(500)),
        RetryCase("request timeout", .transport(.timedOut(.request, limit: .seconds(30))), .milliseconds(250) ... .milliseconds(500)),
        RetryCase("connection reset", .transport(.connectionLost(detail: "reset")), .milliseconds(250) ... .milliseconds(500)),
        RetryCase("502", .serverFailure, status: 502, .milliseconds(250) ... .milliseconds(500)),
        RetryCase("503 without Retry-After", .serverFailure, status: 503, .milliseconds(250) ... .milliseconds(500)),
        RetryCase("504", .serverFailure, status: 504, .milliseconds(250) ... .milliseconds(500)),
        RetryCase("429 Retry-After 7s honoured", .rateLimited(retryAfter: .seconds(7)), .seconds(7) ... .seconds(7)),
        RetryCase("429 Retry-After at the cap honoured", .rateLimited(retryAfter: .seconds(60)), .seconds(60) ... .seconds(60)),
        RetryCase("429 Retry-After past the cap: give up", .rateLimited(retryAfter: .seconds(61)), nil),
        RetryCase("429 without Retry-After backs off", .rateLimited(retryAfter: nil), .milliseconds(250) ... .milliseconds(500)),
        RetryCase("write limit waits what the message says", .writeLimited(retryAfter: .seconds(12)), .seconds(12) ... .seconds(12)),
        RetryCase("write limit on the last attempt: give up", attempt: 3, .writeLimited(retryAfter: .seconds(1)), nil),
        RetryCase("401 is not retried", .authFailed, status: 401, nil),
        RetryCase("read-only token is not retried", .readOnlyToken, status: 403, nil),
        RetryCase("other 403 is not retried", .denied, status: 403, nil),
        RetryCase("404 is not retried", .notFound, status: 404, nil),
        RetryCase("push disabled is not retried", .pushDisabled, status: 500, nil),
        RetryCase("usage is not retried", .usage, status: 400, nil),
        RetryCase("500 failure is not retried", .serverFailure, status: 500, nil),
        RetryCase("HTML is not retried", .notJSON, status: 404, nil),
        RetryCase("malformed JSON is not retried", .malformed, status: 200, nil),
        RetryCase("protocol version 2 is not retried", .protocolVersion(2), status: 200, nil),
        RetryCase("TLS failure is not retried", .transport(.tlsFailed(detail: "bad cert")), nil),
        RetryCase("a redirect is not retried", .transport(.redirect(status: 302, target: "https://elsewhere")), nil),
        RetryCase("cancellation is not retried", .transport(.cancelled), nil),
        RetryCase("an oversized answer is not retried", .transport(.responseTooLarge(limit: 1 << 20)), nil),
    ]

    @Test("the schedule allows a retry only when it can succeed", arguments: cases)
    func schedule(_ row: RetryCase) throws {
        let error = GitbayError(kind: row.kind, account: "alice@gitbay.test", command: ["whoami"], httpStatus: row.httpStatus)
        for random in Self.randoms {
            let delay = Self.policy.delay(afterAttempt: row.attempt, failedWith: error, unitRandom: random)
            if let expected = row.expected {
                let allowed = try #require(delay, "random \(random)")
                #expect(expected.contains(allowed), "random \(random): \(allowed)")
            } else {
                #expect(delay == nil)
            }
        }
    }

    @Test(
        "backoff doubles up to the cap",
        arguments: [
            (1, Duration.milliseconds(500)), (2, .seconds(1)), (3, .seconds(2)), (4, .seconds(4)),
            (5, .seconds(8)), (6, .seconds(8)), (40, .seconds(8)),
        ])
    func backoffWithoutJitter(_ attempt: Int, _ expected: Duration) {
        let policy = RetryPolicy(maxAttempts: 100, jitter: .none)
        #expect(policy.backoff(afterAttempt: attempt, unitRandom: 0.5) == expected)
    }

    @Test("full jitter spans zero to the backoff, equal jitter its upper half", arguments: [1, 2, 3, 4, 5, 6])
    func jitterRange(_ attempt: Int) {
        let full = RetryPolicy(maxAttempts: 10, jitter: .full)
        let equal = RetryPolicy(maxAttempts: 10, jitter: .equal)
        let ceiling = RetryPolicy(maxAttempts: 10, jitter: .none).backoff(afterAttempt: attempt, unitRandom: 0)
        #expect(full.backoff(afterAttempt: attempt, unitRandom: 0) == .zero)
        #expect(equal.backoff(afterAttempt: attempt, unitRandom: 0) == ceiling / 2)
        for random in Self.randoms {
            #expect((Duration.zero...ceiling).contains(full.backoff(afterAttempt: attempt, unitRandom: random)))
            #expect((ceiling / 2...ceiling).contains(equal.backoff(afterAttempt: attempt, unitRandom: random)))
        }
    }

    @Test("one attempt never retries")
    func never() {
        let error = GitbayError(kind: Self.connectRefused, account: "alice@gitbay.test", command: ["whoami"])
        #expect(RetryPolicy.never.delay(afterAttempt: 1, failedWith: error, unitRandom: 0.5) == nil)
    }

    @Test("a zero base gives zero backoff, for fast tests")
    func zeroBase() {
        let policy = RetryPolicy(baseDelay: .zero)
        let error = GitbayError(kind: .serverFailure, account: "alice@gitbay.test", command: ["whoami"], httpStatus: 502)
        #expect(policy.delay(afterAttempt: 1, failedWith: error, unitRandom: 0.7) == .zero)
    }
}
