import Foundation
import GitbayFake
import Testing
@testable import GitbaySync

/// 128 accounts on one server that enforces gitbay's per-account rate limits.
@Suite("Load on one server")
struct LoadTests {
    @Test("128 accounts on one rate-limited server: at most one refusal per account per run, and the runs converge")
    func manyAccountsOneServer() async throws {
        let server = try FakeGitbayServer()
        let users = (0..<128).map { String(format: "u%03d", $0) }
        let cli = try CLIHarness()
        for user in users { try await cli.login(server, user) }
        #expect(await cli.run(["device", "set-token", "--label", "load"], stdin: "c0ffee00aaaabbbbccccdddd").code == 0)
        // Limits on from here: sign-in has already spent one read per account, as it would.
        server.enforceRateLimits = true
        server.resetRequests()

        var writesPerRun: [Int] = []
        for run in 1...3 {
            let result = await cli.run(["run", "--json"])
            #expect(result.code == 0, "run \(run): \(result.err)")
            let outcomes = try #require(try result.json()["accounts"] as? [[String: Any]])
            #expect(outcomes.count == users.count)
            writesPerRun.append(outcomes.reduce(0) { $0 + ($1["writes"] as? Int ?? 0) })

            // Refusals per user in this run: 429 from the API limiter, 403 from the write limit
            // (every token here is full scope, so a 403 can only be that).
            var refused: [String: Int] = [:]
            for request in server.requests() where request.status == 429 || request.status == 403 {
                refused[request.user ?? "?", default: 0] += 1
            }
            #expect(refused.values.allSatisfy { $0 <= 1 }, "run \(run): refused more than once: \(refused.filter { $0.value > 1 })")
            server.resetRequests()
        }

        // Every account holds exactly one row with the device token.
        let rows = server.devices()
        #expect(Set(rows.map(\.owner)) == Set(users))
        #expect(rows.count == users.count)
        #expect(rows.allSatisfy { $0.token == "c0ffee00aaaabbbbccccdddd" })
        #expect(writesPerRun.first == users.count, "the first run adds one row per account: \(writesPerRun)")
        #expect(writesPerRun.dropFirst().allSatisfy { $0 == 0 }, "later runs write nothing: \(writesPerRun)")
    }
}
