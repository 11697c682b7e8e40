import Foundation
import GitbayFake
import TestSupport
import Testing

@testable import GitbayAPI
@testable import GitbayReconcile
@testable import GitbayState
@testable import GitbaySupport
@testable import GitbaySync
@testable import PushResolve

/// 128 accounts spread over instances the way people have them, every server enforcing
/// gitbay's per-account rate limits.
@Suite("Load over many instances")
struct LoadTests {
    /// Accounts per instance: one, two, three or four (55 instances, 128 accounts).
    static let instanceSizes: [Int] =
        Array(repeating: 1, count: 16) + Array(repeating: 2, count: 16)
        + Array(repeating: 3, count: 12) + Array(repeating: 4, count: 11)

    @Test("128 accounts over 55 rate-limited instances: one holder each, at most one refusal per account per run, then no writes")
    func manyAccountsManyInstances() async throws {
        #expect(Self.instanceSizes.reduce(0, +) == 128)
        let servers = try Self.instanceSizes.map { _ in try FakeGitbayServer() }
        let cli = try CLIHarness()
        var users: [[String]] = []
        for (index, (server, size)) in zip(servers, Self.instanceSizes).enumerated() {
            let names = (0..<size).map { String(format: "u%02d-%d", index, $0) }
            for user in names { try await cli.login(server, user) }
            users.append(names)
        }
        #expect(await cli.run(["device", "set-token", "--label", "load"], stdin: "c0ffee00aaaabbbbccccdddd").code == 0)
        servers.forEach { $0.resetRequests() }

        var writesPerRun: [Int] = []
        for run in 1...3 {
            let result = await cli.run(["run", "--json"])
            #expect(result.code == 0, "run \(run): \(result.err)")
            let outcomes = try #require(try result.json()["accounts"] as? [[String: Any]])
            #expect(outcomes.count == 128)
            writesPerRun.append(outcomes.reduce(0) { $0 + ($1["writes"] as? Int ?? 0) })
            let conditions = outcomes.map { $0["condition"] as? String ?? "" }
            #expect(conditions.filter { $0 == "registered" }.count == servers.count, "run \(run): one holder per instance")
            #expect(conditions.filter { $0 == "shadowed" }.count == 128 - servers.count, "run \(run): the rest shadowed")

            // Refusals per user in this run: 429 from the API limiter, 403 from the write limit.
            var refused: [String: Int] = [:]
            for request in servers.flatMap({ $0.requests() }) where request.status == 429 || request.status == 403 {
                refused[request.user ?? "?", default: 0] += 1
            }
            #expect(refused.values.allSatisfy { $0 <= 1 }, "run \(run): refused more than once: \(refused.filter { $0.value > 1 })")
            servers.forEach { $0.resetRequests() }
        }

        // Each instance holds exactly one row with the device token, the first account's.
        for (server, names) in zip(servers, users) {
            #expect(server.devices().map(\.owner) == [names[0]])
            #expect(server.devices().allSatisfy { $0.token == "c0ffee00aaaabbbbccccdddd" })
        }
        #expect(writesPerRun.first == servers.count, "the first run adds one row per instance: \(writesPerRun)")
        #expect(writesPerRun.dropFirst().allSatisfy { $0 == 0 }, "later runs write nothing: \(writesPerRun)")
    }
}
