import Foundation
import GitbayFake
import GitbaySyncKit
import TestSupport
import Testing

@Suite("Adopting the app's accounts at launch")
struct AdoptTests {
    static let deviceToken = "feedface" + String(repeating: "06", count: 28)

    @Test("one call signs in the app's new accounts, keeps those known, and signs out a dropped one, kept until its server is back")
    func adopt() async throws {
        let folder = try TemporaryDirectory()
        let (main, other) = (try FakeGitbayServer(), try FakeGitbayServer())
        let sync = try await GitbayPushSync(
            databasePath: folder.databasePath, transport: URLSessionTransport(), configuration: GitbayConfiguration(attempts: 1))
        try await sync.setDeviceToken(Self.deviceToken)
        let annToken = main.mintToken(for: "ann")
        let ann = try await sync.signIn(instance: main.baseURL, apiToken: annToken).account
        let bob = try await sync.signIn(instance: other.baseURL, apiToken: other.mintToken(for: "bob")).account
        _ = try await sync.pause(ann)
        let carolToken = main.mintToken(for: "carol")
        let app = [
            GitbayAppAccount(instance: main.baseURL, username: "ann", apiToken: annToken),
            GitbayAppAccount(instance: main.baseURL, username: "carol", apiToken: carolToken),
            GitbayAppAccount(instance: "http://gitbay.example", username: "dave", apiToken: carolToken),
        ]

        other.isDown = true
        main.resetRequests()
        let first = try await sync.adopt(app)
        #expect(first.kept.map(\.id) == [ann.id] && first.kept.map(\.state) == [.paused], "a known account is left as it was")
        #expect(first.signedIn.map(\.account.name) == [app[1].name])
        #expect(first.signedIn.flatMap(\.results).filter { $0.name == app[1].name }.map(\.action) == [.added])
        #expect(!main.requests().contains { $0.argv.first == "whoami" }, "the app vouches for its accounts: no check is sent")
        #expect(first.refused.map(\.account) == [app[2]])
        #expect(first.refused.map(\.error.isBadInstance) == [true])
        let held = try #require(first.signedOut.first)
        #expect(first.signedOut.count == 1 && held.result.id == bob.id && !held.removal.isRemoved && !first.isComplete)
        #expect(try await sync.accounts().map(\.name) == [ann.name, bob.name, app[1].name!])
        #expect(try await sync.accounts().map(\.state) == [.paused, .removing, .active])
        #expect(other.devices(of: "bob").count == 1, "the server was down: its row is still there")

        other.isDown = false
        let second = try await sync.adopt(Array(app.prefix(2)))
        #expect(second.signedIn.isEmpty && second.refused.isEmpty)
        #expect(second.kept.map(\.username) == ["ann", "carol"])
        #expect(second.signedOut.map(\.result.id) == [bob.id] && second.signedOut.allSatisfy(\.removal.isRemoved))
        #expect(second.isComplete)
        #expect(other.devices().isEmpty)
        #expect(try await sync.accounts().map(\.username) == ["ann", "carol"])
    }

    @Test("an app account's descriptions and mirror leave its token out")
    func tokenNotShown() throws {
        let token = "gb_" + String(repeating: "7", count: 40)
        let account = GitbayAppAccount(instance: "https://gitbay.org", username: "ann", apiToken: token)
        #expect(account.description == "ann@gitbay.org")
        var dumped = ""
        dump(account, to: &dumped)
        for shown in [String(describing: account), String(reflecting: account), dumped, "\([account])"] {
            #expect(!shown.contains(token))
        }
    }
}

extension GitbaySignInError {
    fileprivate var isBadInstance: Bool {
        if case .badInstance = self { return true }
        return false
    }
}
