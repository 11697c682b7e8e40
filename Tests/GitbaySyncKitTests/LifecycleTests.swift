import Foundation
import GitbayFake
import GitbaySyncKit
import TestSupport
import Testing

/// What an app's lifecycle asks of the library: a time budget, cancellation that says so,
/// limits, and a database closed while suspended.
@Suite("Push sync lifecycle")
struct LifecycleTests {
    static let deviceToken = "feedface" + String(repeating: "03", count: 28)

    let folder: TemporaryDirectory
    let server: FakeGitbayServer

    init() throws {
        folder = try TemporaryDirectory()
        server = try FakeGitbayServer()
    }

    /// A registrar with ann signed in and registered.
    func signedIn(_ configuration: GitbayConfiguration = GitbayConfiguration()) async throws -> (GitbayPushSync, GitbayAccount) {
        let sync = try await GitbayPushSync(databasePath: folder.databasePath, transport: URLSessionTransport(), configuration: configuration)
        try await sync.setDeviceToken(Self.deviceToken)
        let ann = try await sync.signIn(instance: server.baseURL, apiToken: server.mintToken(for: "ann")).account
        server.deleteDevice(id: try #require(server.devices(of: "ann").first?.id))
        return (sync, ann)
    }

    @Test("a budget spent while a server hangs says the account did not finish, and the next run finishes it")
    func budget() async throws {
        let (sync, ann) = try await signedIn()
        server.latency = .seconds(20)
        let stopped = try await sync.reconcile(budget: .milliseconds(300))
        #expect(stopped.unfinished.map(\.id) == [ann.id] && stopped.finished.isEmpty && !stopped.isComplete)
        server.latency = .zero
        let run = try await sync.reconcile(budget: .seconds(20))
        #expect(run.isComplete && run.finished.map(\.action) == [.reAdded])
    }

    @Test("a budget spent while one server hangs keeps the other server's accounts finished, each keyed by its id")
    func budgetAcrossServers() async throws {
        let (sync, ann) = try await signedIn()
        let other = try FakeGitbayServer()
        let bob = try await sync.signIn(instance: other.baseURL, apiToken: other.mintToken(for: "bob")).account
        server.latency = .seconds(20)
        let run = try await sync.reconcile(budget: .seconds(2))
        #expect(run.unfinished.map(\.id) == [ann.id])
        #expect(run.finished.map(\.id) == [bob.id] && run.finished.allSatisfy(\.succeeded))
    }

    @Test("a cancelled reconcile throws CancellationError, never an empty success")
    func cancelled() async throws {
        let (sync, _) = try await signedIn()
        server.latency = .seconds(20)
        let task = Task { try await sync.reconcile() }
        try await Task.sleep(for: .milliseconds(200))
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
    }

    @Test("the request timeout and attempts the app sets are the ones kept")
    func limits() async throws {
        let (sync, _) = try await signedIn(GitbayConfiguration(requestTimeout: .milliseconds(300), attempts: 1))
        server.latency = .seconds(5)
        let result = try #require(try await sync.reconcile().first)
        #expect(result.failed && result.requests == 1)
        guard case .server(let failure) = result.failure, case .transport(.timedOut(.request, _)) = failure.kind else {
            Issue.record("failed for \(String(describing: result.failure))")
            return
        }
    }

    @Test("suspend stops the run in flight and closes the database; every call then throws until resume reopens it")
    func suspend() async throws {
        let (sync, ann) = try await signedIn()
        server.latency = .seconds(20)
        let run = Task { try await sync.reconcile(budget: nil) }
        try await Task.sleep(for: .milliseconds(200))
        await sync.suspend()
        #expect(try await run.value.unfinished.map(\.id) == [ann.id])
        #expect(sync.isSuspended)
        // The last connection closed: SQLite removed the write-ahead log.
        #expect(!FileManager.default.fileExists(atPath: folder.databasePath + "-wal"))
        await #expect(throws: GitbaySuspended.self) { try await sync.accounts() }

        server.latency = .zero
        try await sync.resume()
        #expect(try await sync.reconcile().map(\.action) == [.reAdded])
    }

    /// Linux has no Data Protection: this shows the option is taken and changes nothing here.
    /// Whether an Apple build gives the files the class is untried (no Apple SDK builds here).
    @Test("a file protection class the app asks for is kept in its configuration; on Linux the database opens, suspends and resumes as before")
    func fileProtection() async throws {
        let configuration = GitbayConfiguration(fileProtection: .completeUntilFirstUserAuthentication)
        #expect(configuration.fileProtection == .completeUntilFirstUserAuthentication && GitbayConfiguration().fileProtection == nil)
        let (sync, ann) = try await signedIn(configuration)
        await sync.suspend()
        try await sync.resume()
        #expect(try await sync.reconcile().map(\.id) == [ann.id])
        let mode = try FileManager.default.attributesOfItem(atPath: folder.databasePath)[.posixPermissions] as? Int
        #expect(mode == 0o600)
    }
}
