import Foundation
import GitbayFake
import TestSupport
import Testing

@testable import GitbaySupport

/// A number a server sends (a `Retry-After`, the write limit's wait) that is absurdly large:
/// the built binary, as a user runs it, ends no command on it and stores no wait longer than
/// the backoff ceiling (an hour).
@Suite("Hostile numbers from a server, end to end")
struct HostileNumbersTests {
    /// One hostile answer, given to every request of the account.
    struct HostileAnswer: Sendable, CustomTestStringConvertible {
        let name: String
        let fault: FakeFault
        var testDescription: String { name }
    }

    static func rateLimited(retryAfter value: String, status: Int = 429) -> FakeFault {
        .status(status, body: #"{"protocol_version":1,"error":"rate limited; retry in \#(value)s"}"#, headers: ["Retry-After": value])
    }

    static let answers = [
        HostileAnswer(name: "429 with Retry-After of 16 digits (past milliseconds in 64 bits)", fault: rateLimited(retryAfter: "10000000000000000")),
        HostileAnswer(name: "503 with Retry-After of 16 digits", fault: rateLimited(retryAfter: "10000000000000000", status: 503)),
        HostileAnswer(name: "429 with Retry-After of 11 digits (the year 5195)", fault: rateLimited(retryAfter: "99999999999")),
        HostileAnswer(name: "429 with Retry-After of 30 digits (past 64 bits)", fault: rateLimited(retryAfter: String(repeating: "9", count: 30))),
        HostileAnswer(
            name: "the write limit asking for the longest Go duration (292 years)",
            fault: .status(
                403,
                body:
                    #"{"protocol_version":1,"error":"too many writes: 60 a minute per account; try again in 2562047h47m16.854775807s","exit_code":4}"#
            )),
    ]

    /// Runs the binary to its end; fails the test when a signal (a trap) ended it.
    static func survives(_ binary: BuiltBinary, _ arguments: [String], stdin: String? = nil) async throws -> RunningBinary.Finished {
        let finished = try await binary.start(arguments, stdin: stdin).finish(timeout: .seconds(90))
        #expect(finished.code != nil, "`\(arguments.joined(separator: " "))` was ended by signal \(finished.status): \(finished.err)")
        #expect(!finished.err.contains("Fatal error") && !finished.err.contains("runtime failure"), "\(arguments): \(finished.err)")
        return finished
    }

    @Test("every command that reaches the account ends normally, and the stored wait is at most the ceiling", arguments: answers)
    func commandsSurvive(_ answer: HostileAnswer) async throws {
        let server = try FakeGitbayServer()
        defer { server.stop() }
        let folder = try TemporaryDirectory()
        let binary = try BuiltBinary.located(in: folder)
        let account = "alice@127.0.0.1:\(server.port)"
        let login = try await binary.run(["login", server.baseURL], stdin: server.mintToken(for: "alice") + "\n")
        #expect(login.code == 0, "\(login.err)")
        #expect(try await binary.run(["device", "set-token"], stdin: "c0ffee00aaaabbbbccccdddd").code == 0)
        server.inject(answer.fault, times: 10_000)

        let run = try await Self.survives(binary, ["run"])
        #expect(run.code == 1, "\(run.err)")
        #expect(run.err.contains(account), "\(run.err)")
        #expect(run.err.contains(" 1h or more"), "the wait as it is honoured: \(run.err)")
        let status = try await Self.survives(binary, ["status", "--json"])
        #expect(status.code == 0, "\(status.err)")
        let row = try #require(
            ((try JSONSerialization.jsonObject(with: Data(status.out.utf8)) as? [String: Any])?["accounts"] as? [[String: Any]])?.first)
        let attempted = try #require(Timestamp.parse(row["last_attempt_at"] as? String))
        let next = try #require(Timestamp.parse(row["next_retry_at"] as? String), "a rate limit is retried: \(row)")
        #expect(next.timeIntervalSince(attempted) <= 3600, "the next attempt is at most an hour after the last: \(row)")
        #expect(next > attempted)

        for arguments in [["status"], ["doctor"], ["devices"], ["push", "show"], ["pause", account], ["resume", account]] {
            _ = try await Self.survives(binary, arguments)
        }
        let again = try await Self.survives(binary, ["login", server.baseURL], stdin: server.mintToken(for: "alice") + "\n")
        #expect(again.code != 0, "the server answers nothing but the hostile answer: \(again.out)")
        let removed = try await Self.survives(binary, ["remove-account", account, "--force"])
        #expect(removed.code == 0, "\(removed.err)")
        let accounts = try await binary.run(["accounts"])
        #expect(!accounts.out.contains(account), "\(accounts.out)")
    }
}
