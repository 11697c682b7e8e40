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

    @Test("the records a rotation could concern: a token with a name, or with stale names; not one pasted without a name")
    func renewableRecords() async throws {
        let folder = try TemporaryDirectory()
        let store = try await StateStore.open(folder.location)
        let instance = try InstanceURL(parsing: "https://gitbay.example")
        let named = try await store.signIn(
            instance: instance, username: "alice", apiToken: Secret("alice-token"), details: APITokenDetails(name: "gitbay-sync-a", expiresAt: nil))
        let pasted = try await store.signIn(instance: instance, username: "bob", apiToken: Secret("bob-token"))
        let pastedWithStale = try await store.signIn(instance: instance, username: "carol", apiToken: Secret("carol-token"))
        try await store.recordStaleTokenNames(["gitbay-sync-old"], ofAccount: pastedWithStale.id)

        #expect(Set(try await store.apiTokenRecords().keys) == [named.id, pasted.id, pastedWithStale.id])
        let renewable = try await store.apiTokenRecords(renewable: true)
        #expect(Set(renewable.keys) == [named.id, pastedWithStale.id])
        #expect(renewable[pastedWithStale.id]?.staleNames == ["gitbay-sync-old"])
    }

    @Test("a stale name is recorded for an account that is there; for one a removal deleted meanwhile, nothing, and no error")
    func staleNameOfGoneAccount() async throws {
        let folder = try TemporaryDirectory()
        let store = try await StateStore.open(folder.location)
        let instance = try InstanceURL(parsing: "https://gitbay.example")
        let alice = try await store.signIn(
            instance: instance, username: "alice", apiToken: Secret("alice-token"), details: APITokenDetails(name: "gitbay-sync-a", expiresAt: nil))
        try await store.setState(.removing, ofAccount: alice.id)

        #expect(try await store.recordStaleTokenNames(["gitbay-sync-new"], ofAccount: alice.id, unlessRemoving: true) == false)
        #expect(try await store.apiTokenRecords()[alice.id]?.staleNames == [], "not while it is being removed, when asked so")
        #expect(try await store.recordStaleTokenNames(["gitbay-sync-new"], ofAccount: alice.id) == true)
        #expect(try await store.apiTokenRecords()[alice.id]?.staleNames == ["gitbay-sync-new"])

        let removing = try #require(try await store.account(id: alice.id))
        #expect(try await store.deleteAccount(id: alice.id, removalStartedAt: removing.removalStartedAt) != .notRemoving)
        #expect(try await store.recordStaleTokenNames(["gitbay-sync-later"], ofAccount: alice.id) == false)
        #expect(try await store.apiTokenRecords().isEmpty)
    }

    @Test("the tokens a pinned name's lapse can be warned of: those with a name, an expiry and a lifetime, their details as recorded")
    func namedExpiring() async throws {
        let folder = try TemporaryDirectory()
        let store = try await StateStore.open(folder.location)
        let instance = try InstanceURL(parsing: "https://gitbay.example")
        let (expiry, lifetime) = (Date(timeIntervalSince1970: 1_800_000_000), Duration.seconds(90 * 86_400))
        let given: [(String, APITokenDetails)] = [
            ("full", APITokenDetails(name: "pinned", expiresAt: expiry, lifetime: lifetime)),
            ("unnamed", APITokenDetails(name: nil, expiresAt: expiry, lifetime: lifetime)),
            ("endless", APITokenDetails(name: "pinned", expiresAt: nil, lifetime: lifetime)),
            ("unknown-lifetime", APITokenDetails(name: "pinned", expiresAt: expiry, lifetime: nil)),
            ("no-lifetime", APITokenDetails(name: "pinned", expiresAt: expiry, lifetime: .zero)),
        ]
        var ids: [String: Int64] = [:]
        for (username, details) in given {
            ids[username] = try await store.signIn(instance: instance, username: username, apiToken: Secret(username), details: details).id
        }
        let full = try #require(ids["full"])
        let details = try await store.namedExpiringTokenDetails()
        #expect(Array(details.keys) == [full])
        #expect(details[full] == (try await store.apiTokenRecords())[full]?.details)
    }
}
