import Foundation
import GitbayFake
import Testing
@testable import GitbaySync

/// What a command says is what happened: a failure is named where it happened, nothing is
/// reported done that was not, and nothing is promised that nothing will do.
@Suite("Messages say what did and did not happen")
struct MessageTruthTests {
    static let token = ReconcilerTests.token

    // MARK: what retries a failure

    @Test("a failed run says what retries it, and no message promises a retry by itself")
    func whatRetries() async throws {
        let server = try FakeGitbayServer()
        let cli = try CLIHarness()
        let name = try await cli.login(server, "alice")
        #expect(await cli.run(["device", "set-token"], stdin: Self.token).code == 0)
        server.inject(.status(502, body: "<html>bad gateway</html>"), command: "notifications device list", times: 10)
        let result = await cli.run(["run"])
        #expect(result.code == ExitCode.partialFailure.rawValue)
        #expect(result.err.contains(name))
        #expect(!result.err.contains("retried on the next run"), "\(result.err)")
        #expect(!result.err.contains("will be retried"), "\(result.err)")
        #expect(result.err.contains("`gitbay-sync run` tries again"), "\(result.err)")
    }

    @Test("no error description promises that something retries it", arguments: GitbayErrorTests.kinds)
    func noPromisedRetry(_ kind: GitbayError.Kind) {
        let error = GitbayError(kind: kind, account: "alice@gitbay.test", command: ["notifications", "device", "list"], httpStatus: 500)
        #expect(!error.description.contains("retried"), "\(error.description)")
    }

    @Test("a login that fails promises no retry: nothing was stored")
    func loginPromisesNothing() async throws {
        let server = try FakeGitbayServer()
        let cli = try CLIHarness()
        let token = server.mintToken(for: "alice")
        server.inject(.status(502, body: "<html>bad gateway</html>"), command: "whoami", times: 10)
        let result = await cli.run(["login", server.baseURL], stdin: token)
        #expect(result.code == ExitCode.unavailable.rawValue)
        #expect(result.err.contains("nothing was stored"))
        #expect(!result.err.contains("retried"), "\(result.err)")
    }
}
