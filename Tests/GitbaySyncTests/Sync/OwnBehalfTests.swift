import Foundation
import GitbayFake
import TestSupport
import Testing

@testable import GitbayAPI
@testable import GitbayReconcile
@testable import GitbayState
@testable import GitbaySupport
@testable import GitbaySync

/// One server's trouble is no other account's: a pass talks to its own server only, and writes
/// only its own account's state.
@Suite("Each account on its own behalf")
struct OwnBehalfTests {
    static let token = "c0ffee00aaaabbbbccccdddd"

    @Test("a hung server takes nothing from another account's add: the reaped row is added again within its own deadline")
    func hungServerDelaysNoAdd() async throws {
        let hung = try FakeGitbayServer()
        let healthy = try FakeGitbayServer()
        let cli = try CLIHarness()
        let alice = try await cli.login(hung, "alice")
        let bob = try await cli.login(healthy, "bob")
        #expect(await cli.run(["device", "set-token"], stdin: Self.token).code == 0)
        #expect(await cli.run(["run"]).code == 0)
        // Bob's row is reaped; alice's server then accepts requests and never answers.
        healthy.deleteDevice(id: try #require(healthy.devices(of: "bob").first?.id))
        hung.inject(.hang, command: "notifications device list", times: 20)
        hung.resetRequests()

        let run = await cli.run(["run", "--now", "--json"], client: HungInstanceTests.client(requestTimeout: .seconds(15), deadline: .seconds(5)))
        #expect(run.code == 1, "\(run.err)")
        let outcomes = try RunOutcomeTests.accounts(run)
        #expect(outcomes[bob]?["action"] as? String == "re-added", "\(run.out)")
        #expect(outcomes[alice]?["action"] as? String == "failed", "\(run.out)")
        #expect(healthy.devices(of: "bob").map(\.token) == [Self.token])
        // Only alice's own list reached her server: bob's pass never asked it anything.
        #expect(hung.requests().map(\.user) == ["alice"], "\(hung.requests().map { "\($0.user ?? "?") \($0.argv)" })")
    }

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
