import Foundation
import GitbayFake
import GitbaySyncKit
import TestSupport
import Testing

/// The library as an app sees it: the public API only, over URLSession, against the fake
/// server on 127.0.0.1.
@Suite("Push registrar")
struct PushRegistrarTests {
    static let deviceToken = "feedface" + String(repeating: "01", count: 28)

    let folder: TemporaryDirectory
    let server: FakeGitbayServer

    init() throws {
        folder = try TemporaryDirectory()
        server = try FakeGitbayServer()
    }

    func registrar(removalStep: (any RemovalStep)? = nil) async throws -> PushRegistrar {
        try await PushRegistrar(databasePath: folder.databasePath, transport: URLSessionTransport(), removalStep: removalStep)
    }

    @Test("sign in, register, pause, resume, sign out: the server's rows follow")
    func lifecycle() async throws {
        let registrar = try await registrar()
        try await registrar.setDeviceToken(Self.deviceToken, label: "phone")
        let ann = try await registrar.signIn(instance: server.baseURL, apiToken: server.mintToken(for: "ann"))
        #expect(ann.username == "ann" && ann.state == .active)
        #expect(server.devices(of: "ann").map(\.token) == [Self.deviceToken])

        #expect(try await registrar.pause(ann).map(\.condition) == ["paused"])
        #expect(server.devices().isEmpty)
        #expect(try await registrar.resume(ann).map(\.condition) == ["registered"])
        #expect(try await registrar.reconcile().map(\.action) == ["unchanged"])

        #expect(try await registrar.signOut(ann) == .removed)
        #expect(server.devices().isEmpty)
        #expect(try await registrar.accounts().isEmpty)
    }

    @Test("a refused token, a read-only one and an insecure URL are typed sign-in errors that store nothing")
    func signInErrors() async throws {
        let registrar = try await registrar()
        await #expect(throws: SignInError.tokenRefused) {
            try await registrar.signIn(instance: server.baseURL, apiToken: "gb_" + String(repeating: "0", count: 40))
        }
        await #expect(throws: SignInError.readOnlyToken) {
            try await registrar.signIn(instance: server.baseURL, apiToken: server.mintToken(for: "ann", scope: .read))
        }
        do {
            try await registrar.signIn(instance: "http://gitbay.example", apiToken: server.mintToken(for: "ann"))
            Issue.record("plain http to a remote host was accepted")
        } catch SignInError.badInstance {
        }
        #expect(try await registrar.accounts().isEmpty)
    }

    /// Fails until `passes` is set, as an app's step might while its Keychain is locked.
    final class Step: RemovalStep, @unchecked Sendable {
        private let lock = NSLock()
        private var _passes = false
        private var _ran: [String] = []
        var passes: Bool {
            get { lock.withLock { _passes } }
            set { lock.withLock { _passes = newValue } }
        }
        var ran: [String] { lock.withLock { _ran } }

        struct Locked: Error {}

        func run(forAccount name: String) async throws {
            let passes = lock.withLock {
                _ran.append(name)
                return _passes
            }
            if !passes { throw Locked() }
        }
    }

    @Test("a removal step that fails keeps the account removing with its token; a later reconcile finishes the sign-out")
    func removalStepRetried() async throws {
        let step = Step()
        let registrar = try await registrar(removalStep: step)
        try await registrar.setDeviceToken(Self.deviceToken)
        let ann = try await registrar.signIn(instance: server.baseURL, apiToken: server.mintToken(for: "ann"))

        guard case .kept = try await registrar.signOut(ann) else {
            Issue.record("the sign-out did not wait for the removal step")
            return
        }
        #expect(server.devices().isEmpty)
        #expect(try await registrar.accounts().map(\.state) == [.removing])
        // Held by the step again: a failure, as `run` says it, not a success.
        let held = try await registrar.reconcile()
        #expect(held.map(\.action) == ["failed"], "\(held)")
        #expect(held.map(\.succeeded) == [false])
        #expect(held.first?.condition == "removing")

        step.passes = true
        _ = try await registrar.reconcile()
        #expect(try await registrar.accounts().isEmpty)
        #expect(step.ran == [ann.name, ann.name, ann.name])
    }
}
