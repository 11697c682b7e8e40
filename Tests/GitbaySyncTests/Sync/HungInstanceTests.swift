import Foundation
import GitbayFake
import TestSupport
import Testing

@testable import GitbayAPI
@testable import GitbayReconcile
@testable import GitbayState
@testable import GitbaySupport
@testable import GitbaySync

/// An instance that accepts a request and never answers costs a run one deadline for all of the
/// account's attempts, and costs doctor one short probe: counted in requests the server saw,
/// with short client timeouts, never timed.
@Suite("A hung instance")
struct HungInstanceTests {
    /// Three attempts with no wait between them: without a deadline a hung server gets all three.
    static func client(requestTimeout: Duration, deadline: Duration?) -> ClientConfiguration {
        var client = ClientConfiguration(
            transport: TransportConfiguration(connectTimeout: .seconds(2), requestTimeout: requestTimeout),
            retry: RetryPolicy(maxAttempts: 3, baseDelay: .zero, maxDelay: .zero, maxRetryAfter: .seconds(1), jitter: .none),
            http: CLIHarness.client.http)
        client.deadline = deadline
        return client
    }

    @Test("a run gives a hung instance one deadline for every attempt, then backs the account off as a timeout")
    func runDeadline() async throws {
        let server = try FakeGitbayServer()
        let healthy = try FakeGitbayServer()
        let cli = try CLIHarness()
        let alice = try await cli.login(server, "alice")
        let carol = try await cli.login(healthy, "carol")
        #expect(await cli.run(["device", "set-token"], stdin: "c0ffee00aaaabbbbccccdddd").code == 0)
        server.inject(.hang, command: "notifications device list", times: 10)
        server.resetRequests()

        // The deadline is short for the hung server and long enough for the healthy one's
        // three requests on a loaded machine (2 s was not, once, over URLSession with the
        // whole suite running beside it); each request's own timeout is longer still, so the
        // deadline is what ends the hung one.
        let run = await cli.run(["run"], client: Self.client(requestTimeout: .seconds(15), deadline: .seconds(5)))
        #expect(run.code == 1, "\(run.err)")
        #expect(server.requests().count == 1, "one attempt, cut off at the deadline: \(server.requests().map(\.argv))")
        #expect(
            run.err.contains("\(alice): `notifications device list` failed: the requests took longer than the account's 5s deadline"), "\(run.err)"
        )
        #expect(healthy.devices(of: "carol").count == 1, "the other account is registered: \(carol): \(run.err)")
        let store = try await cli.store()
        let account = try #require(try await store.account(named: alice))
        let status = try await store.status(ofAccount: account.id)
        #expect(status.condition == .error && status.failures == 1)
        #expect(status.nextRetryReason == .backoff && status.nextRetryAt != nil)
    }

    @Test("doctor probes a hung instance once, with no retry, and says it did not answer")
    func doctorProbe() async throws {
        let server = try FakeGitbayServer()
        let cli = try CLIHarness()
        let alice = try await cli.login(server, "alice")
        server.inject(.hang, command: "whoami", times: 10)
        server.resetRequests()
        let doctor = await cli.run(["doctor"], client: Self.client(requestTimeout: .milliseconds(300), deadline: nil))
        #expect(doctor.code == 1)
        #expect(server.requests().count == 1, "\(server.requests().map(\.argv))")
        #expect(
            doctor.out.contains(
                "FAIL  account.reachable  \(alice): \(server.baseURL) cannot be reached: `whoami` failed: the request took longer than 300ms"),
            "\(doctor.out)")
    }

    @Test("doctor's probes of an instance that stops answering end at the account's deadline")
    func doctorDeadline() async throws {
        let server = try FakeGitbayServer()
        let cli = try CLIHarness()
        _ = try await cli.login(server, "alice")
        #expect(await cli.run(["device", "set-token"], stdin: "c0ffee00aaaabbbbccccdddd").code == 0)
        // whoami answers (within the deadline on a loaded machine too); what follows hangs,
        // and only the deadline is left to end it.
        server.inject(.hang, command: "notifications", times: 10)
        server.resetRequests()
        let doctor = await cli.run(["doctor"], client: Self.client(requestTimeout: .seconds(10), deadline: .seconds(3)))
        #expect(doctor.code == 1)
        #expect(server.requests().map { $0.argv.prefix(3).joined(separator: " ") } == ["whoami", "notifications settings show"])
        #expect(doctor.out.contains("the account's 3s deadline"), "\(doctor.out)")
    }

    @Test("doctor's probes are short and not retried, whatever a run's client allows")
    func probeConfiguration() {
        let probe = AccountProbe.configuration(from: ClientConfiguration(http: CLIHarness.client.http))
        #expect(probe.retry == .never)
        #expect(probe.transport.requestTimeout == AccountProbe.requestTimeout && probe.transport.connectTimeout <= AccountProbe.requestTimeout)
        #expect(probe.deadline == AccountProbe.deadline)
        #expect(AccountProbe.requestTimeout == .seconds(10) && AccountProbe.deadline == .seconds(20))
        let shorter = AccountProbe.configuration(from: Self.client(requestTimeout: .seconds(1), deadline: .seconds(5)))
        #expect(shorter.transport.requestTimeout == .seconds(1) && shorter.deadline == .seconds(5))
    }
}
