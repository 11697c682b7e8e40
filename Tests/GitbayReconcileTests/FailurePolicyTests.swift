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
        let (condition, wait) = FailurePolicy.classify(example.error, failures: 3, ceiling: .seconds(900))
        #expect(condition == example.condition)
        #expect(wait == example.wait)
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
        #expect(FailurePolicy.retryReason(example.error) == example.reason)
    }
}
