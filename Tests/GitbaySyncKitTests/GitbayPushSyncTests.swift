import Foundation
import GitbayFake
import GitbaySyncKit
import Synchronization
import TestSupport
import Testing

/// The library as an app sees it: the public API only, over URLSession, against the fake
/// server on 127.0.0.1.
@Suite("Push sync")
struct GitbayPushSyncTests {
    static let deviceToken = "feedface" + String(repeating: "01", count: 28)

    let folder: TemporaryDirectory
    let server: FakeGitbayServer

    init() throws {
        folder = try TemporaryDirectory()
        server = try FakeGitbayServer()
    }

    func sync(removalStep: (any GitbayRemovalStep)? = nil, log: GitbayLogHandler? = nil) async throws -> GitbayPushSync {
        try await GitbayPushSync(databasePath: folder.databasePath, transport: URLSessionTransport(), removalStep: removalStep, log: log)
    }

    @Test("sign in, register, pause, resume, sign out: typed results, and the server's rows follow")
    func lifecycle() async throws {
        let sync = try await sync()
        try await sync.setDeviceToken(Self.deviceToken, label: "phone")
        let signIn = try await sync.signIn(instance: server.baseURL, apiToken: server.mintToken(for: "ann"))
        let ann = signIn.account
        #expect(ann.username == "ann" && ann.state == .active)
        #expect(signIn.results.map(\.id) == [ann.id])
        #expect(signIn.results.map(\.action) == [.added] && signIn.results.allSatisfy(\.succeeded))
        #expect(server.devices(of: "ann").map(\.token) == [Self.deviceToken])

        #expect(try await sync.pause(ann).map(\.condition) == [.paused])
        #expect(server.devices().isEmpty)
        #expect(try await sync.resume(ann).map(\.condition) == [.registered])
        #expect(try await sync.reconcile().map(\.action) == [.unchanged])

        let signOut = try await sync.signOut(ann)
        #expect(signOut.removal.isRemoved && signOut.result.id == ann.id && signOut.result.succeeded)
        #expect(server.devices().isEmpty)
        #expect(try await sync.accounts().isEmpty)
    }

    @Test("a refused token, a read-only one and an insecure URL are typed sign-in errors that store nothing")
    func signInErrors() async throws {
        let sync = try await sync()
        await #expect(throws: GitbaySignInError.tokenRefused) {
            try await sync.signIn(instance: server.baseURL, apiToken: "gb_" + String(repeating: "0", count: 40))
        }
        await #expect(throws: GitbaySignInError.readOnlyToken) {
            try await sync.signIn(instance: server.baseURL, apiToken: server.mintToken(for: "ann", scope: .read))
        }
        do {
            try await sync.signIn(instance: "http://gitbay.example", apiToken: server.mintToken(for: "ann"))
            Issue.record("plain http to a remote host was accepted")
        } catch GitbaySignInError.badInstance {
        }
        #expect(try await sync.accounts().isEmpty)
    }

    /// Fails until `passes` is set, as an app's step might while its Keychain is locked.
    final class Step: GitbayRemovalStep {
        let passes = Mutex(false)
        let ran = Mutex<[GitbayAccount]>([])

        struct Locked: Error {}

        func run(for account: GitbayAccount) async throws {
            ran.withLock { $0.append(account) }
            if !passes.withLock({ $0 }) { throw Locked() }
        }
    }

    @Test("a removal held by a failing removal step reads as failed, keyed by the account's id; a later reconcile finishes it")
    func removalStepRetried() async throws {
        let step = Step()
        let sync = try await sync(removalStep: step)
        try await sync.setDeviceToken(Self.deviceToken)
        let ann = try await sync.signIn(instance: server.baseURL, apiToken: server.mintToken(for: "ann")).account

        let signOut = try await sync.signOut(ann)
        #expect(signOut.removal == .kept(.removalStepFailed(message: "Locked()")))
        #expect(!signOut.result.succeeded && signOut.result.failed)
        #expect(server.devices().isEmpty)
        #expect(try await sync.accounts().map(\.state) == [.removing])
        let refusal = await #expect(throws: GitbayAccountBeingSignedOut.self) { try await sync.pause(ann) }
        #expect(refusal?.account.id == ann.id && refusal?.account.state == .removing)
        // Held by the step again: a failure, as `run` says it, not a success.
        let held = try #require(try await sync.reconcile().first)
        #expect(held.id == ann.id && held.action == .failed && held.condition == .removing)
        #expect(!held.succeeded && held.failed)
        #expect(held.failure == .removalStep(message: "Locked()"))
        #expect(held.removal == .kept(.removalStepFailed(message: "Locked()")))

        step.passes.withLock { $0 = true }
        let done = try await sync.reconcile()
        #expect(done.map(\.removal?.isRemoved) == [true])
        #expect(try await sync.accounts().isEmpty)
        #expect(step.ran.withLock { $0.map(\.id) } == [ann.id, ann.id, ann.id])
    }

    @Test("a removal step set after init is the one a sign-out runs, given the account; cleared, none runs")
    func removalStepSetLater() async throws {
        let sync = try await sync()
        try await sync.setDeviceToken(Self.deviceToken)
        let ann = try await sync.signIn(instance: server.baseURL, apiToken: server.mintToken(for: "ann")).account
        let bob = try await sync.signIn(instance: server.baseURL, apiToken: server.mintToken(for: "bob")).account
        let step = Step()
        step.passes.withLock { $0 = true }
        sync.setRemovalStep(step)
        #expect(try await sync.signOut(ann).removal.isRemoved)
        #expect(step.ran.withLock { $0.map(\.id) } == [ann.id])
        #expect(step.ran.withLock { $0.map(\.state) } == [.removing], "the step is told the account as it is being signed out")

        sync.setRemovalStep(nil)
        #expect(try await sync.signOut(bob).removal.isRemoved)
        #expect(step.ran.withLock { $0.map(\.id) } == [ann.id], "a cleared step runs no more")
    }

    @Test("the app's log handler receives the engine's records, with the account named and no token; each reads as one line")
    func logHandler() async throws {
        let records = Mutex<[GitbayLogRecord]>([])
        let sync = try await sync(log: GitbayLogHandler(minimumLevel: .debug) { record in records.withLock { $0.append(record) } })
        try await sync.setDeviceToken(Self.deviceToken)
        let token = server.mintToken(for: "ann")
        let ann = try await sync.signIn(instance: server.baseURL, apiToken: token).account
        _ = try await sync.pause(ann)
        let logged = records.withLock { $0 }
        #expect(logged.contains { $0.message == "registration.remove" && $0.fields["account.name"] == ann.name })
        #expect(!logged.contains { record in record.fields.values.contains { $0.contains(token) } })
        let removal = try #require(logged.first { $0.message == "registration.remove" })
        #expect(removal.line.hasPrefix("registration.remove ") && removal.line.contains(" account.name=\(ann.name)"))
        #expect(!logged.contains { $0.line.contains(token) })
    }
}
