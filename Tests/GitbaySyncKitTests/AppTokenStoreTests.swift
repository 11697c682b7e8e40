import Foundation
import GitbayFake
import GitbaySyncKit
import Synchronization
import TestSupport
import Testing

/// An app's own token store, in memory; it throws while `locked`.
final class AppTokens: APITokenStore {
    struct Locked: Error {}

    let tokens = Mutex<[String: String]>([:])
    let locked = Mutex(false)

    private func check() throws { if locked.withLock({ $0 }) { throw Locked() } }

    func store(_ token: String, for account: String) async throws {
        try check()
        tokens.withLock { $0[account] = token }
    }

    func readAll() async throws -> [String: String] {
        try check()
        return tokens.withLock { $0 }
    }

    func delete(account: String) async throws {
        try check()
        tokens.withLock { $0[account] = nil }
    }
}

/// The library with the app's own token store: the public API only.
@Suite("Push sync with the app's token store")
struct AppTokenStoreTests {
    static let deviceToken = "feedface" + String(repeating: "02", count: 28)

    @Test(
        "the app's store holds the token, the database file none; a locked store leaves the account not checked, not succeeded; sign-out deletes it")
    func appStore() async throws {
        let folder = try TemporaryDirectory()
        let server = try FakeGitbayServer()
        let tokens = AppTokens()
        let sync = try await GitbayPushSync(databasePath: folder.databasePath, transport: URLSessionTransport(), tokenStore: tokens)
        try await sync.setDeviceToken(Self.deviceToken, label: "phone")
        let token = server.mintToken(for: "ann")
        let ann = try await sync.signIn(instance: server.baseURL, apiToken: token).account
        #expect(tokens.tokens.withLock { $0.count == 1 && $0.first?.key.hasPrefix(ann.name + " ") == true && $0.first?.value == token })
        #expect(server.devices(of: "ann").count == 1)
        let files = [folder.databasePath, folder.databasePath + "-wal"].compactMap(fileBytes).map { String(decoding: $0, as: UTF8.self) }
        #expect(!files.joined().contains(token))

        tokens.locked.withLock { $0 = true }
        let waiting = try #require(try await sync.reconcile().first)
        #expect(waiting.id == ann.id && waiting.condition != .authFailed && waiting.action == .skipped)
        #expect(waiting.notChecked == .tokenStoreUnavailable)
        #expect(!waiting.succeeded && !waiting.failed)
        guard case .tokenStoreUnavailable(.failed) = waiting.skipReason else {
            Issue.record("skipped for \(String(describing: waiting.skipReason))")
            return
        }
        #expect(try await sync.snapshot().accounts.map(\.notChecked) == [.tokenStoreUnavailable])

        tokens.locked.withLock { $0 = false }
        #expect(try await sync.signOut(ann).removal.isRemoved)
        #expect(tokens.tokens.withLock { $0.isEmpty })
        #expect(server.devices().isEmpty)
    }
}
