import Foundation
import GitbayFake
import GitbaySyncKit
import Synchronization
import TestSupport
import Testing

/// An app that keeps its tokens itself, under its own keys: the engine only reads them.
final class AppKeychain: GitbayTokenSource {
    struct Locked: Error {}

    /// Tokens by the account's name, the app's own key.
    let tokens = Mutex<[String: String]>([:])
    let locked = Mutex(false)

    func apiToken(for account: GitbayAccount) async throws -> String? {
        if locked.withLock({ $0 }) { throw Locked() }
        return tokens.withLock { $0[account.name] }
    }
}

/// The app's sign-out step: it deletes its own item.
struct DeleteAppItem: GitbayRemovalStep {
    let keychain: AppKeychain

    func run(for account: GitbayAccount) async throws {
        _ = keychain.tokens.withLock { $0.removeValue(forKey: account.name) }
    }
}

@Suite("Push sync reading the app's own tokens")
struct TokenSourceTests {
    static let deviceToken = "feedface" + String(repeating: "05", count: 28)

    @Test("the app's item is the only copy: the engine registers with it, writes none, waits while it is locked, and the app's step deletes it")
    func appOwnsTokens() async throws {
        let folder = try TemporaryDirectory()
        let server = try FakeGitbayServer()
        let keychain = AppKeychain()
        let sync = try await GitbayPushSync(
            databasePath: folder.databasePath, transport: URLSessionTransport(), removalStep: DeleteAppItem(keychain: keychain),
            tokenSource: keychain)
        try await sync.setDeviceToken(Self.deviceToken)
        let token = server.mintToken(for: "ann")
        let name = try #require(GitbayAccount.name(instance: server.baseURL + "/", username: "ann"))
        keychain.tokens.withLock { $0[name] = token }
        server.resetRequests()
        let signIn = try await sync.signIn(instance: server.baseURL, apiToken: token, verifiedAs: "ann")
        #expect(signIn.results.map(\.action) == [.added])
        #expect(!server.requests().contains { $0.argv.first == "whoami" })
        #expect(signIn.account.name == name && keychain.tokens.withLock { $0 } == [name: token])
        let files = [folder.databasePath, folder.databasePath + "-wal"].compactMap(fileBytes).map { String(decoding: $0, as: UTF8.self) }
        #expect(!files.joined().contains(token))

        keychain.locked.withLock { $0 = true }
        #expect(try await sync.reconcile().map(\.notChecked) == [.tokenStoreUnavailable])
        keychain.locked.withLock { $0 = false }
        #expect(try await sync.signOut(signIn.account).removal.isRemoved)
        #expect(server.devices().isEmpty && keychain.tokens.withLock { $0.isEmpty })
    }
}
