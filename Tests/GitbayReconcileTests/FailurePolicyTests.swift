import Foundation
import TestSupport
import Testing

@testable import GitbayAPI
@testable import GitbayReconcile
@testable import GitbayState
@testable import GitbaySupport

@Suite("Failure policy")
struct FailurePolicyTests {
    struct Step: Sendable, CustomStringConvertible {
        let failures: Int
        let ceiling: Int64
        let wait: Int64
        var description: String { "failure \(failures), ceiling \(ceiling) s -> \(wait) s" }
    }

    static let schedule: [Step] = [
        .init(failures: 0, ceiling: 3600, wait: 60),
        .init(failures: 1, ceiling: 3600, wait: 60),
        .init(failures: 2, ceiling: 3600, wait: 120),
        .init(failures: 3, ceiling: 3600, wait: 240),
        .init(failures: 6, ceiling: 3600, wait: 1920),
        .init(failures: 7, ceiling: 3600, wait: 3600),
        .init(failures: 40, ceiling: 3600, wait: 3600),
        // The timer's period is the ceiling: a 15 minute timer never waits longer than 15 minutes.
        .init(failures: 4, ceiling: 900, wait: 480),
        .init(failures: 5, ceiling: 900, wait: 900),
        .init(failures: 1, ceiling: 30, wait: 30),
        .init(failures: 3, ceiling: 10, wait: 10),
    ]

    @Test("one minute, doubling per consecutive failure, capped at the ceiling", arguments: schedule)
    func backoff(_ step: Step) {
        #expect(FailurePolicy.backoff(failures: step.failures, ceiling: .seconds(step.ceiling)) == .seconds(step.wait))
    }

    struct Case: Sendable, CustomStringConvertible {
        let name: String
        let error: GitbayError
        let condition: AccountCondition
        let wait: Duration?
        var description: String { name }
    }

    static func error(_ kind: GitbayError.Kind, status: Int? = nil) -> GitbayError {
        GitbayError(kind: kind, account: "alice@gitbay.test", command: ["notifications", "device", "list"], httpStatus: status)
    }

    static let cases: [Case] = [
        .init(
            name: "429 waits its Retry-After, even past the ceiling", error: error(.rateLimited(retryAfter: .seconds(1200)), status: 429),
            condition: .error, wait: .seconds(1200)),
        .init(
            name: "the write limit waits the time its message names", error: error(.writeLimited(retryAfter: .seconds(45)), status: 403),
            condition: .error, wait: .seconds(45)),
        .init(name: "429 without a wait backs off", error: error(.rateLimited(retryAfter: nil), status: 429), condition: .error, wait: .seconds(240)),
        .init(
            name: "a transport fault backs off", error: error(.transport(.connectFailed(.refused, detail: "connection refused"))), condition: .error,
            wait: .seconds(240)),
        .init(name: "a 502 backs off", error: error(.serverFailure, status: 502), condition: .error, wait: .seconds(240)),
        .init(name: "401 waits for a new sign-in", error: error(.authFailed, status: 401), condition: .authFailed, wait: nil),
        .init(
            name: "push off on the instance retries at the ceiling", error: error(.pushDisabled, status: 500), condition: .pushDisabled,
            wait: .seconds(900)),
        .init(name: "a read-only token retries at the ceiling", error: error(.readOnlyToken, status: 403), condition: .denied, wait: .seconds(900)),
    ]

    @Test("classifies each failure and chooses the wait (third failure, 15 minute ceiling)", arguments: cases)
    func classify(_ example: Case) {
        let (condition, wait) = FailurePolicy.classify(.server(example.error), failures: 3, ceiling: .seconds(900))
        #expect(condition == example.condition)
        #expect(wait == example.wait)
    }

    struct BoundCase: Sendable, CustomStringConvertible {
        let name: String
        let error: GitbayError
        let ceiling: Duration
        let wait: Duration
        var description: String { name }
    }

    static let bounds: [BoundCase] = [
        .init(
            name: "a plain run: a Retry-After of years waits the ceiling, an hour",
            error: error(.rateLimited(retryAfter: .seconds(10_000_000_000_000_000)), status: 429), ceiling: FailurePolicy.defaultCeiling,
            wait: .seconds(3600)),
        .init(
            name: "a plain run: a Retry-After of two hours waits an hour", error: error(.rateLimited(retryAfter: .seconds(7200)), status: 503),
            ceiling: FailurePolicy.defaultCeiling, wait: .seconds(3600)),
        .init(
            name: "a plain run: the write limit's 292 years wait an hour",
            error: error(.writeLimited(retryAfter: .nanoseconds(Int64.max)), status: 403), ceiling: FailurePolicy.defaultCeiling,
            wait: .seconds(3600)),
        .init(
            name: "a 15 minute timer honours a server's 20 minutes", error: error(.rateLimited(retryAfter: .seconds(1200)), status: 429),
            ceiling: .seconds(900), wait: .seconds(1200)),
        .init(
            name: "a 15 minute timer waits at most an hour for a server", error: error(.rateLimited(retryAfter: .seconds(86400)), status: 429),
            ceiling: .seconds(900), wait: .seconds(3600)),
        .init(
            name: "a 3 hour timer honours a server's 2 hours", error: error(.rateLimited(retryAfter: .seconds(7200)), status: 429),
            ceiling: .seconds(3 * 3600), wait: .seconds(7200)),
        .init(
            name: "a 3 hour timer waits at most its period for a server", error: error(.rateLimited(retryAfter: .seconds(5 * 3600)), status: 429),
            ceiling: .seconds(3 * 3600), wait: .seconds(3 * 3600)),
        .init(
            name: "a weekly timer waits at most six hours for a server",
            error: error(.rateLimited(retryAfter: .seconds(10 * 86400)), status: 429), ceiling: .seconds(7 * 86400), wait: .seconds(6 * 3600)),
        .init(
            name: "a weekly timer backs off at most six hours", error: error(.serverFailure, status: 502), ceiling: .seconds(7 * 86400),
            wait: .seconds(6 * 3600)),
        .init(
            name: "a weekly timer retries a denied account after six hours", error: error(.denied, status: 403), ceiling: .seconds(7 * 86400),
            wait: .seconds(6 * 3600)),
        .init(
            name: "a negative wait from elsewhere is no wait", error: error(.rateLimited(retryAfter: .seconds(-5)), status: 429),
            ceiling: FailurePolicy.defaultCeiling, wait: .zero),
    ]

    @Test("a server's wait is bounded by the ceiling (an hour at least), and no wait passes six hours", arguments: bounds)
    func bounded(_ example: BoundCase) throws {
        let wait = try #require(FailurePolicy.classify(.server(example.error), failures: 40, ceiling: example.ceiling).1)
        #expect(wait == example.wait)
        #expect(wait <= FailurePolicy.longestWait)
    }

    @Test(
        "a next attempt further ahead than six hours is beyond any wait a run sets",
        arguments: [(0.0, false), (3600.0, false), (21_600.0, false), (21_601.0, true), (315_360_000.0, true), (-86_400.0, false)] as [(Double, Bool)]
    )
    func beyondAnyWait(_ ahead: Double, _ beyond: Bool) {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        #expect(FailurePolicy.isBeyondAnyWait(now.addingTimeInterval(ahead), from: now) == beyond)
    }

    struct ReasonCase: Sendable, CustomStringConvertible {
        let error: GitbayError
        let reason: RetryReason?
        var description: String { "\(error.kind) -> \(reason?.rawValue ?? "none")" }
    }

    static let reasons: [ReasonCase] = [
        .init(error: error(.rateLimited(retryAfter: .seconds(3600)), status: 429), reason: .retryAfter),
        .init(error: error(.rateLimited(retryAfter: nil), status: 429), reason: .backoff),
        .init(error: error(.writeLimited(retryAfter: .seconds(45)), status: 403), reason: .writeLimit),
        .init(error: error(.serverFailure, status: 502), reason: .backoff),
        .init(error: error(.readOnlyToken, status: 403), reason: .denied),
        .init(error: error(.pushDisabled, status: 500), reason: .pushDisabled),
        .init(error: error(.authFailed, status: 401), reason: nil),
    ]

    @Test("why the account waits, as status and run say it", arguments: reasons)
    func reason(_ example: ReasonCase) {
        #expect(FailurePolicy.retryReason(.server(example.error)) == example.reason)
    }
}
