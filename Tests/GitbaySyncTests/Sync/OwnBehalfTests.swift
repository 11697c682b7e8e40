import Foundation
import GitbayFake
import TestSupport
import Testing

@testable import GitbayAPI
@testable import GitbayReconcile
@testable import GitbayState
@testable import GitbaySupport
@testable import GitbaySync

/// A pass writes only its own account's state: what it learns of another account is a fact that
/// account's own next pass reads.
@Suite("Each account on its own behalf")
struct OwnBehalfTests {
    static let token = "c0ffee00aaaabbbbccccdddd"

    @Test("status says registered right after a run added the row, beside a v1.32.0 server's account")
    func addedStaysRegistered() async throws {
        let older = try FakeGitbayServer()
        older.returnsDeviceID = false
        older.latency = .milliseconds(20)
        let newer = try FakeGitbayServer()
        let cli = try CLIHarness()
        let carol = try await cli.login(older, "carol")
        let dave = try await cli.login(newer, "dave")
        #expect(await cli.run(["device", "set-token"], stdin: Self.token).code == 0)
        for _ in 0..<3 {
            let run = await cli.run(["run", "--now", "--json"])
            #expect(run.code == 0, "\(run.err)")
            let status = await cli.run(["status", "--json"])
            let accounts = try #require(try status.json()["accounts"] as? [[String: Any]])
            for account in accounts {
                #expect(account["condition"] as? String == "registered", "\(account) after \(run.out)")
            }
            #expect(Set(accounts.compactMap { $0["account"] as? String }) == [carol, dave])
        }
    }
}
