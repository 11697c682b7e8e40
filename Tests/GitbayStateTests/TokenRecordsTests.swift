import Foundation
import TestSupport
import Testing

@testable import GitbayState
@testable import GitbaySupport

/// What a rotation decides on is read without the tokens: an account whose token the keyring
/// holds has its details and stale names there too, and no token is made up for it.
@Suite("The API tokens' records")
struct TokenRecordsTests {
    @Test("every account's token details and stale names, wherever the token is kept")
    func recordsWithoutTokens() async throws {
        let folder = try TemporaryDirectory()
        let store = try await StateStore.open(folder.location)
        let instance = try InstanceURL(parsing: "https://gitbay.example")
        let lifetime = Duration.seconds(90 * 86_400)
        let alice = try await store.signIn(
            instance: instance, username: "alice", apiToken: Secret("in-the-database"),
            details: APITokenDetails(name: "gitbay-sync-a", expiresAt: nil, lifetime: lifetime))
        let bob = try await store.signIn(
            instance: instance, username: "bob", apiToken: Secret("in-the-keyring"),
            details: APITokenDetails(name: "gitbay-sync-b", expiresAt: nil, lifetime: nil),
            place: .keyring, keyringItem: "bob@gitbay.example")
        try await store.recordStaleTokenNames(["gitbay-sync-old"], ofAccount: bob.id)

        let records = try await store.apiTokenRecords()
        #expect(Set(records.keys) == [alice.id, bob.id])
        #expect(records[alice.id]?.details.name == "gitbay-sync-a" && records[alice.id]?.details.lifetime == lifetime)
        #expect(records[alice.id]?.staleNames == [])
        #expect(records[bob.id]?.details.name == "gitbay-sync-b" && records[bob.id]?.staleNames == ["gitbay-sync-old"])
        // Read as tokens, the one the keyring holds is there only once the keyring was read.
        #expect(Set(try await store.storedAPITokens().keys) == [alice.id])
    }
}
