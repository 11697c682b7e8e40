import Foundation
import GitbayFake
import Testing
@testable import GitbaySync

/// How one account's failure is classified, and that it never holds the others back.
struct FailureCase: Sendable, CustomTestStringConvertible {
    let name: String
    let condition: AccountCondition
    let retries: Bool
    /// Breaks the server for bob, whose API token is given.
    let breakServer: @Sendable (FakeGitbayServer, String) -> Void

    var testDescription: String { name }
}

@Suite("Failures stay with their account")
struct FailureIsolationTests {
    static let cases: [FailureCase] = [
        FailureCase(name: "token revoked (401)", condition: .authFailed, retries: false) { server, token in
            server.revokeToken(token)
        },
        FailureCase(name: "read-only token (403)", condition: .denied, retries: true) { server, _ in
            server.inject(.status(403, body: #"{"protocol_version":1,"error":"this token is read-only; mint one with --scope full","exit_code":4}"#),
                          command: "notifications device", user: "bob", times: 10)
        },
        FailureCase(name: "push disabled on the instance (500)", condition: .pushDisabled, retries: true) { server, _ in
            server.pushEnabled = false
        },
        FailureCase(name: "bad gateway (502, HTML)", condition: .error, retries: true) { server, _ in
            server.inject(.status(502, body: "<html>bad gateway</html>"), command: "notifications device", user: "bob", times: 10)
        },
        FailureCase(name: "garbage body", condition: .error, retries: true) { server, _ in
            server.inject(.garbage, command: "notifications device", user: "bob", times: 10)
        },
        FailureCase(name: "hung server", condition: .error, retries: true) { server, _ in
            server.inject(.hang, command: "notifications device", user: "bob", times: 10)
        },
    ]

    @Test("one failing account is classified and recorded; the others are registered", arguments: cases)
    func isolation(_ failure: FailureCase) async throws {
        let healthy = try FakeGitbayServer()
        let broken = try FakeGitbayServer()
        let cli = try CLIHarness()
        let alice = try await cli.login(healthy, "alice")
        let bobToken = broken.mintToken(for: "bob")
        #expect(await cli.run(["login", broken.baseURL], stdin: bobToken).code == 0)
        let bob = "bob@127.0.0.1:\(broken.port)"
        #expect(await cli.run(["device", "set-token"], stdin: ReconcilerTests.token).code == 0)
        failure.breakServer(broken, bobToken)

        let fast = ClientConfiguration(
            transport: TransportConfiguration(connectTimeout: .seconds(1), requestTimeout: .milliseconds(400), maxResponseBytes: 1 << 20),
            retry: .never
        )
        let result = await cli.run(["run", "--json"], client: fast)
        #expect(result.code == ExitCode.partialFailure.rawValue)
        #expect(result.err.contains("1 of 2 accounts failed: \(bob)"))
        let outcomes = try ReconcilerTests.accounts(result)
        #expect(outcomes[alice]?["action"] as? String == "added")
        #expect(outcomes[bob]?["action"] as? String == "failed")
        #expect(outcomes[bob]?["condition"] as? String == failure.condition.rawValue)
        #expect((outcomes[bob]?["error"] as? String)?.contains(bob) == true)
        #expect(healthy.devices(of: "alice").count == 1)

        let store = try await cli.store()
        let account = try #require(try await store.account(named: bob))
        let status = try await store.status(ofAccount: account.id)
        #expect(status.condition == failure.condition)
        #expect(status.failures == 1)
        #expect(status.lastError != nil)
        #expect((status.nextRetryAt != nil) == failure.retries)
    }

    @Test("an account whose token failed is not called again until it signs in again")
    func authFailedIsSkipped() async throws {
        let server = try FakeGitbayServer()
        let cli = try CLIHarness()
        let token = server.mintToken(for: "alice")
        #expect(await cli.run(["login", server.baseURL], stdin: token).code == 0)
        let name = "alice@127.0.0.1:\(server.port)"
        #expect(await cli.run(["device", "set-token"], stdin: ReconcilerTests.token).code == 0)
        server.revokeToken(token)
        #expect(await cli.run(["run"]).code == ExitCode.partialFailure.rawValue)
        server.resetRequests()
        let again = await cli.run(["run", "--json"])
        #expect(again.code == ExitCode.partialFailure.rawValue)
        #expect(server.requests().isEmpty)
        #expect(try ReconcilerTests.accounts(again)[name]?["action"] as? String == "skipped")
        #expect(try await cli.login(server, "alice") == name)
        #expect(await cli.run(["run"]).code == 0)
        #expect(server.devices(of: "alice").count == 1)
    }

    @Test("an account whose API token is missing from the database fails as auth-failed and names the fix")
    func missingToken() async throws {
        let server = try FakeGitbayServer()
        let cli = try CLIHarness()
        let name = try await cli.login(server, "alice")
        #expect(await cli.run(["device", "set-token"], stdin: ReconcilerTests.token).code == 0)
        do {
            let database = try Database(path: cli.databasePath)
            try database.execute("DELETE FROM api_tokens")
        }
        server.resetRequests()
        let result = await cli.run(["run", "--json"])
        #expect(result.code == ExitCode.partialFailure.rawValue)
        let outcome = try #require(try ReconcilerTests.accounts(result)[name])
        #expect(outcome["condition"] as? String == "auth-failed")
        #expect((outcome["error"] as? String)?.contains("gitbay-sync login \(server.baseURL)") == true)
        #expect(server.requests().isEmpty)
    }

    @Test("a second command waits for the lock, then fails clearly with exit 75", arguments: [
        ["run"], ["device", "set-token"], ["remove-account", "x@y"], ["login", "http://127.0.0.1:9"],
    ])
    func lockHeld(_ arguments: [String]) async throws {
        let cli = try CLIHarness()
        _ = try await cli.store()
        let lock = try await RunLock.acquire(path: cli.databasePath + ".lock", wait: .zero)
        defer { lock.release() }
        let result = await cli.run(arguments, stdin: "c0ffee00aaaabbbb", lockWait: .milliseconds(200))
        #expect(result.code == ExitCode.busy.rawValue)
        #expect(result.err.contains("another gitbay-sync is working on"))
    }
}
