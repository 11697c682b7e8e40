import Foundation
import GitbayFake
import GitbaySyncKit
import TestSupport
import Testing

/// A tapped push matched to the registrar's accounts through the public API alone.
@Suite("Push sync resolving a tapped push")
struct ResolvePushTests {
    @Test("a payload resolves to its signed-in account and screen; another user's, or a malformed one, does not")
    func resolve() async throws {
        let folder = try TemporaryDirectory()
        let server = try FakeGitbayServer()
        let sync = try await GitbayPushSync(databasePath: folder.databasePath, transport: URLSessionTransport())
        let ann = try await sync.signIn(instance: server.baseURL, apiToken: server.mintToken(for: "ann")).account
        func payload(user: String, path: String) -> String {
            #"{"aps": {"badge": 3}, "instance": "\#(server.baseURL)/", "user": "\#(user)", "path": "\#(path)"}"#
        }

        let push = try #require(try await sync.resolvePush(payload(user: "ann", path: "o/r/mrs/7")))
        #expect(push.account.id == ann.id && push.badge == 3)
        #expect(push.destination == .some(.init(kind: .mergeRequest, owner: "o", repository: "r", number: 7)))
        #expect(push.webURL == server.baseURL + "/o/r/mrs/7")
        #expect(try await sync.resolvePush(payload(user: "ann", path: "o/r/wiki")).map(\.destination) == .some(nil))
        #expect(try await sync.resolvePush(payload(user: "bob", path: "o/r/issues/1")) == nil)
        await #expect(throws: GitbayPayloadError.missing(field: "user")) {
            try await sync.resolvePush(#"{"instance": "https://a.example", "path": ""}"#)
        }
    }
}
