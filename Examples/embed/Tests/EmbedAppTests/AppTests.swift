// The app's use of the engine, test by test, over URLSession against fake gitbay servers on
// 127.0.0.1: what the app's model shows, what its token store holds and what the servers keep.
import EmbedApp
import Foundation
import GitbaySyncKit
import Testing

/// The app as it starts: its token store, its sign-out step, the engine over URLSession in a
/// folder of its own, and the model its settings screen reads, following the change stream.
final class App {
    let keychain = AppKeychain()
    let signOutStep: AppSignOutStep
    let sync: GitbayPushSync
    let model: PushModel
    private let folder: URL
    private var following: Task<Void, any Error>?

    init(configuration: GitbayConfiguration = GitbayConfiguration()) async throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("embed-tests-\(UUID().uuidString)")
        signOutStep = AppSignOutStep(keychain: keychain)
        sync = try await GitbayPushSync(
            databasePath: folder.appendingPathComponent("state.db").path, transport: URLSessionTransport(), configuration: configuration,
            removalStep: signOutStep, tokenSource: keychain)
        model = PushModel(sync: sync)
        following = Task { [model] in try await model.follow() }
    }

    deinit {
        following?.cancel()
        try? FileManager.default.removeItem(at: folder)
    }

    /// The app's sign-in screen: the token filed in its store first, then handed to the engine.
    func signIn(_ user: String, on server: FakeServer, verified: Bool = false) async throws -> GitbayAccount {
        #expect(keychain.save(try server.token(user), instance: server.url, username: user))
        return try await sync.signIn(instance: server.url, apiToken: try server.token(user), verifiedAs: verified ? user : nil).account
    }

    /// Waits (a few seconds at most) until the model shows `conditions` by account name.
    func modelShows(_ conditions: [String: GitbayCondition]) async throws -> Bool {
        try await modelShows { accounts in Dictionary(uniqueKeysWithValues: accounts.map { ($0.account.name, $0.condition) }) == conditions }
    }

    /// Waits (a few seconds at most) until the model's accounts pass `check`.
    func modelShows(_ check: ([GitbayAccountStatus]) -> Bool) async throws -> Bool {
        for _ in 0..<100 {
            if check(model.accounts) { return true }
            try await Task.sleep(for: .milliseconds(50))
        }
        return check(model.accounts)
    }
}

@Suite("The app over GitbaySyncKit")
struct AppTests {
    static let deviceToken = "0a1b2c3d" + String(repeating: "e4", count: 28)
    static let rotatedToken = "9f8e7d6c" + String(repeating: "b5", count: 28)

    /// The `userInfo` of a push gitbay sends, as JSON.
    static func payload(_ server: FakeServer, user: String, path: String) -> String {
        #"{"aps": {"alert": "Review requested", "badge": 2}, "instance": "\#(server.url)/", "user": "\#(user)", "path": "\#(path)"}"#
    }

    @Test("two accounts on one instance and one on another: one holder per instance, the other shadowed; the model mirrors it")
    func threeAccounts() async throws {
        let (first, second) = (try FakeServer(users: ["ann", "bob"]), try FakeServer(users: ["cid"]))
        let app = try await App()
        try await app.sync.setDeviceToken(Self.deviceToken, label: "test phone")
        let ann = try await app.signIn("ann", on: first)
        let bob = try await app.signIn("bob", on: first)
        let cid = try await app.signIn("cid", on: second)

        let run = try await app.model.refresh(within: .seconds(25))
        #expect(run.isComplete)
        let conditions = Dictionary(uniqueKeysWithValues: run.finished.map { ($0.id, $0.condition) })
        #expect(conditions == [ann.id: .registered, bob.id: .shadowed, cid.id: .registered])
        #expect(run.finished.first { $0.id == bob.id }?.shadowedBy == ann.name)
        #expect(try await first.rows().map(\.owner) == ["ann"])
        #expect(try await second.rows().map(\.owner) == ["cid"])
        #expect(try await second.rows().map { Self.deviceToken.hasPrefix($0.token) } == [true])
        #expect(try await app.modelShows([ann.name: .registered, bob.name: .shadowed, cid.name: .registered]))
        #expect(app.model.deviceTokenSet)
    }

    @Test("a rotated device token replaces the old one's row on the next refresh")
    func rotation() async throws {
        let server = try FakeServer(users: ["ann"])
        let app = try await App()
        try await app.sync.setDeviceToken(Self.deviceToken)
        let ann = try await app.signIn("ann", on: server)
        #expect(try await server.rows().map { Self.deviceToken.hasPrefix($0.token) } == [true], "the sign-in registered the device")

        try await app.sync.setDeviceToken(Self.rotatedToken)
        let run = try await app.model.refresh(within: .seconds(25))
        #expect(run.finished.map(\.id) == [ann.id])
        #expect(run.finished.map(\.action) == [.rotated])
        #expect(try await server.rows().map { Self.rotatedToken.hasPrefix($0.token) } == [true], "one row, the new token's")
        #expect(try await app.modelShows([ann.name: .registered]))
    }

    @Test(
        "a sign-out while the server is down is kept, with the app's token; once the server is back a refresh finishes it and the app's step deletes the token"
    )
    func signOutThroughAnOutage() async throws {
        let server = try FakeServer(users: ["ann"])
        let app = try await App(configuration: GitbayConfiguration(requestTimeout: .seconds(5), attempts: 1))
        try await app.sync.setDeviceToken(Self.deviceToken)
        let ann = try await app.signIn("ann", on: server)
        #expect(try await server.rows().count == 1)

        try await server.down(seconds: 3)
        let kept = try await app.sync.signOut(ann)
        guard case .kept(.deregistrationFailed) = kept.removal else {
            Issue.record("a sign-out with the server down is kept: \(kept.removal)")
            return
        }
        #expect(app.keychain.count == 1 && app.signOutStep.clearedAccounts.isEmpty, "the token stays until the device is deregistered")
        #expect(try await app.modelShows { $0.map(\.account.state) == [.removing] && $0.map(\.condition) == [.error] }, "\(app.model.accounts)")
        #expect(
            try await app.sync.resolvePush(Self.payload(server, user: "ann", path: "o/r/issues/1")) == nil,
            "an account being signed out opens no push")

        try await Task.sleep(for: .seconds(3.5))
        let run = try await app.model.refresh(within: .seconds(25))
        #expect(run.finished.first { $0.id == ann.id }?.removal?.isRemoved == true, "\(run.finished)")
        #expect(try await server.rows() == [])
        #expect(app.keychain.count == 0 && app.signOutStep.clearedAccounts == [ann.name])
        #expect(try await app.sync.accounts() == [])
        #expect(try await app.modelShows([:]))
    }

    @Test("a refresh cancelled while its server hangs throws CancellationError, and the model still shows the account pending")
    func cancelledRefresh() async throws {
        let server = try FakeServer(users: ["ann"], latencyMilliseconds: 20_000)
        let app = try await App()
        // The app verified the token itself, so the sign-in sends nothing to the slow server.
        let ann = try await app.signIn("ann", on: server, verified: true)
        try await app.sync.setDeviceToken(Self.deviceToken)
        let refresh = Task { [model = app.model] in try await model.refresh(within: .seconds(25)) }
        try await Task.sleep(for: .milliseconds(300))
        refresh.cancel()
        await #expect(throws: CancellationError.self) { try await refresh.value }
        let snapshot = try await app.sync.snapshot()
        #expect(snapshot.accounts.map(\.account.id) == [ann.id])
        #expect(snapshot.accounts.first?.condition == .pending)
    }

    @Test("suspended, the engine refuses every call and the database is closed; resumed, it refreshes as before")
    func suspendAndResume() async throws {
        let server = try FakeServer(users: ["ann"])
        let app = try await App()
        try await app.sync.setDeviceToken(Self.deviceToken)
        let ann = try await app.signIn("ann", on: server)

        await app.sync.suspend()
        #expect(app.sync.isSuspended)
        await #expect(throws: GitbaySuspended.self) { try await app.model.refresh(within: .seconds(5)) }
        await #expect(throws: GitbaySuspended.self) { try await app.sync.snapshot() }
        await #expect(throws: GitbaySuspended.self) { try await app.sync.resolvePush(Self.payload(server, user: "ann", path: "o/r/issues/1")) }

        try await app.sync.resume()
        #expect(!app.sync.isSuspended)
        let run = try await app.model.refresh(within: .seconds(25))
        #expect(run.isComplete && run.finished.map(\.id) == [ann.id] && run.finished.map(\.action) == [.unchanged])
        #expect(try await app.sync.snapshot().accounts.map(\.condition) == [.registered])
    }

    @Test("a tapped push opens its account's screen; another user's push, not signed in here, opens nothing")
    func tappedPush() async throws {
        let server = try FakeServer(users: ["ann", "bob"])
        let app = try await App()
        let ann = try await app.signIn("ann", on: server)

        let push = try #require(try await app.sync.resolvePush(Self.payload(server, user: "ann", path: "org/app/mrs/12")))
        #expect(push.account.id == ann.id && push.badge == 2)
        #expect(push.destination == GitbayPushDestination(kind: .mergeRequest, owner: "org", repository: "app", number: 12))
        #expect(push.webURL == server.url + "/org/app/mrs/12")
        #expect(try await app.sync.resolvePush(Self.payload(server, user: "bob", path: "org/app/issues/3")) == nil)
        await #expect(throws: GitbayPayloadError.self) { try await app.sync.resolvePush(#"{"aps": {}}"#) }
    }

    @Test("at launch the engine adopts the app's accounts in one call: its new one signed in, a dropped one signed out through the app's step")
    func adoptAtLaunch() async throws {
        let server = try FakeServer(users: ["ann", "bob"])
        let app = try await App()
        try await app.sync.setDeviceToken(Self.deviceToken)
        let bob = try await app.signIn("bob", on: server)
        // The app now has ann in place of bob: it filed her token; bob's item stays until the
        // engine's sign-out runs the app's step, which deletes it once the device is deregistered.
        let annToken = try server.token("ann")
        #expect(app.keychain.save(annToken, instance: server.url, username: "ann"))
        let adoption = try await app.sync.adopt([GitbayAppAccount(instance: server.url, username: "ann", apiToken: annToken)])
        #expect(adoption.isComplete && adoption.kept.isEmpty && adoption.refused.isEmpty)
        #expect(adoption.signedOut.map(\.result.id) == [bob.id])
        let ann = try #require(adoption.signedIn.first?.account)
        #expect(adoption.signedIn.count == 1 && ann.username == "ann")
        #expect(app.signOutStep.clearedAccounts == [bob.name] && app.keychain.count == 1)
        #expect(try await server.rows().map(\.owner) == ["ann"])
        #expect(try await app.modelShows([ann.name: .registered]))
    }
}
