import Foundation
import TestSupport
import Testing

@testable import GitbayAPI
@testable import GitbayReconcile
@testable import GitbayState
@testable import GitbaySupport

/// Random and hostile response heads (status, `Retry-After`, `ETag`, lengths) through the
/// answer classification, the error's description, the failure policy and the run schedule:
/// never a trap, never a wait past the ceiling. Replay and size as `FuzzTests` says.
@Suite("Fuzzing response headers")
struct HeaderFuzzTests {
    static let hostileRetryAfter = [
        "0", "1", "59", "60", "3599", "3600", "3601", "86400", "99999999999", "10000000000000000", "9223372036854775807",
        "9223372036854775808", "18446744073709551616", String(repeating: "9", count: 400), "-1", "+5", "1.5", "1e9", "0x10", " 7 ",
        "\t42", "", " ", "soon", "Wed, 21 Oct 2026 07:28:00 GMT", "٣", "\u{FF11}", "7, 9", "00000000000000000000001",
    ]
    static let bodies = [
        #"{"protocol_version":1,"error":"rate limited; retry in 3s"}"#,
        #"{"protocol_version":1,"error":"busy","exit_code":1}"#,
        #"{"protocol_version":1,"data":[],"exit_code":0}"#,
        #"{"protocol_version":2,"error":"x"}"#,
        "<html>bad gateway</html>", "",
    ]
    static let ceilings: [Duration] = [FailurePolicy.defaultCeiling, .seconds(10), .seconds(900), .seconds(3 * 3600), .seconds(7 * 86400)]

    /// A `Retry-After` value: a hostile one, random digits of any length, or random bytes.
    static func retryAfter(_ input: inout FuzzInput) -> String {
        switch input.int(0...3) {
        case 0, 1: input.pick(hostileRetryAfter)
        case 2: input.text(from: Array("0123456789"), length: 0...40)
        default: String(decoding: input.mutate(input.pick(hostileRetryAfter), fragments: ["9", "0", " ", "-", ".", "\u{0}", "\r\n"]), as: UTF8.self)
        }
    }

    /// An `ETag` value of any length, with what a careless or hostile server puts in one.
    static func entityTag(_ input: inout FuzzInput) -> String {
        let alphabet = Array("0123456789abcdef\"W/ ") + ["\u{0}", "\u{1}", "\t", "\u{7F}", "\u{2026}", "\r", "\n"]
        return input.chance(50)
            ? "\"" + input.text(from: Array("0123456789abcdef"), length: 0...80) + "\"" : input.text(from: alphabet, length: 0...600)
    }

    /// A body: a gitbay answer, the write limit's message with any wait, or random bytes.
    static func body(_ input: inout FuzzInput) -> [UInt8] {
        switch input.int(0...3) {
        case 0:
            let wait =
                input.chance(50)
                ? input.pick(["2562047h47m16.854775807s", "99999999999h", "1h0m1s", "59m59s"])
                : input.text(from: Array("0123456789.hms"), length: 1...40)
            return Array(#"{"protocol_version":1,"error":"too many writes: 60 a minute per account; try again in \#(wait)","exit_code":4}"#.utf8)
        case 1: return Array(input.pick(bodies).utf8)
        case 2: return input.mutate(input.pick(bodies))
        default: return (0..<input.int(0...64)).map { _ in UInt8(truncatingIfNeeded: input.random.next()) }
        }
    }

    @Test("no header or status traps, and no wait passes the ceiling")
    func heads() throws {
        var (input, iterations, seed) = FuzzInput.start(
            "response headers through ServerAnswer, GitbayError, FailurePolicy and RunSchedule", default: 4000)
        let statuses = [200, 304, 400, 401, 403, 404, 429, 500, 502, 503, 504]
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let instance = try InstanceURL(parsing: "https://gitbay.test")
        let account = AccountRecord(id: 1, instance: instance, username: "alice", name: "alice@gitbay.test", state: .active, signedInAt: now)
        var waits = 0
        for index in 0..<iterations {
            let status = input.chance(80) ? input.pick(statuses) : input.int(-1...1000)
            var headers: [String: String] = [:]
            if input.chance(70) { headers["retry-after"] = Self.retryAfter(&input) }
            if input.chance(40) { headers["etag"] = Self.entityTag(&input) }
            if input.chance(20) { headers["content-length"] = Self.retryAfter(&input) }
            let body = Self.body(&input)
            let context = "case \(index) of seed \(seed): \(status) \(headers) \(String(decoding: body, as: UTF8.self))"

            if let kept = ServerAnswer.entityTag(headers["etag"]) {
                #expect(kept.utf8.count <= ServerAnswer.longestEntityTag && kept.utf8.allSatisfy { $0 > 0x20 && $0 != 0x7F }, "\(context)")
            }
            guard case .failure(let kind, let exitCode, let message) = ServerAnswer(status: status, headers: headers, body: body) else { continue }
            let error = GitbayError(
                kind: kind, account: account.name, command: ["notifications", "device", "list"], httpStatus: status, exitCode: exitCode,
                serverMessage: message)
            #expect(!error.description.isEmpty, "\(context)")
            if let wait = error.retryAfter {
                #expect(wait >= .zero && wait <= ServerAnswer.longestWait, "\(context)")
                _ = wait.roundedUpMilliseconds
            }
            let retry = RetryPolicy(jitter: .full)
            if let delay = retry.delay(afterAttempt: input.int(1...2), failedWith: error, unitRandom: Double(input.int(0...99)) / 100) {
                #expect(delay <= max(retry.maxRetryAfter, retry.maxDelay), "\(context)")
            }

            let ceiling = input.pick(Self.ceilings)
            let (condition, chosen) = FailurePolicy.classify(.server(error), failures: input.int(0...10_000), ceiling: ceiling)
            guard let wait = chosen else {
                #expect(condition == .authFailed, "\(context)")
                continue
            }
            waits += 1
            #expect(wait >= .zero && wait <= FailurePolicy.longestWait, "\(context)")
            // A plain run's ceiling bounds every wait; a timer's bounds all but a server's,
            // which may have an hour.
            #expect(wait <= max(ceiling, FailurePolicy.defaultCeiling), "\(context), ceiling \(ceiling)")
            if ceiling == FailurePolicy.defaultCeiling { #expect(wait <= ceiling, "\(context)") }

            // As recorded, the wait skips the account no longer than the wait itself.
            let next = FailurePolicy.nextAttempt(after: now, waiting: wait)
            let record = AccountStatusRecord(
                condition: condition, lastError: error.description, nextRetryAt: next, nextRetryReason: FailurePolicy.retryReason(.server(error)),
                failures: 1)
            #expect(!FailurePolicy.isBeyondAnyWait(next, from: now), "\(context)")
            let during = RunSchedule.entries(
                accounts: [account], statuses: [1: record], preferred: [:], hasDeviceToken: true, honourBackoff: true, now: now)
            let afterwards = RunSchedule.entries(
                accounts: [account], statuses: [1: record], preferred: [:], hasDeviceToken: true, honourBackoff: true,
                now: now.addingTimeInterval(wait.inSeconds + 1))
            if wait >= .seconds(1), case .reconcile? = during.first { Issue.record("\(context): not waited for") }
            guard case .reconcile(_, .hold)? = afterwards.first else {
                Issue.record("\(context): still waiting after \(wait)")
                continue
            }
        }
        #expect(waits > 0, "the generator reaches waits")
        print("fuzz response headers: \(waits) of \(iterations) heads ended in a wait")
    }

    @Test("any duration is written and counted in milliseconds without a trap")
    func durations() {
        var (input, iterations, seed) = FuzzInput.start("Duration.shortDescription and roundedUpMilliseconds", default: 4000)
        for index in 0..<iterations {
            let seconds = input.chance(50) ? Int64(bitPattern: input.random.next()) : Int64(input.int(-100...100_000))
            let attoseconds = Int64(input.int(0...999_999_999_999_999_999))
            let duration = Duration(secondsComponent: seconds, attosecondsComponent: seconds < 0 ? 0 : attoseconds)
            let text = duration.shortDescription
            #expect(!text.isEmpty, "case \(index) of seed \(seed): \(seconds) s")
            let millis = duration.roundedUpMilliseconds
            #expect((seconds >= 0) == (millis >= 0), "case \(index) of seed \(seed): \(seconds) s -> \(millis) ms")
        }
    }
}
