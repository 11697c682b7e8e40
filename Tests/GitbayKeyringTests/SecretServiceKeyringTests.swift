import Foundation
import GitbayKeyring
import GitbaySupport
import TestSupport
import Testing

/// The Secret Service keyring against a real Secret Service: gnome-keyring on a private
/// session bus, one per test.
@Suite("Secret Service keyring", .timeLimit(.minutes(2)))
struct SecretServiceKeyringTests {
    @Test("a token stored is read back, replaced by the next store of its account, and gone once deleted")
    func roundTrip() async throws {
        let session = try await SecretServiceSession.start()
        defer { session.stop() }
        let keyring = SecretServiceKeyring(environment: session.environment)

        try await keyring.store(Secret("gb_alice_1"), for: "alice@gitbay.org")
        try await keyring.store(Secret("gb_bob"), for: "bob@git.example.com:8443")
        try await keyring.store(Secret("gb_alice_2"), for: "alice@gitbay.org")
        let both = try await keyring.readAll()
        let deleted = try await keyring.delete(account: "alice@gitbay.org")
        let again = try await keyring.delete(account: "alice@gitbay.org")
        let rest = try await keyring.readAll()

        #expect(both == ["alice@gitbay.org": Secret("gb_alice_2"), "bob@git.example.com:8443": Secret("gb_bob")])
        #expect(deleted == .deleted)
        #expect(again == .noItem)
        #expect(rest == ["bob@git.example.com:8443": Secret("gb_bob")])
    }

    @Test("an item carries service=gitbay-sync and account=user@host, as any Secret Service client finds it")
    func attributes() async throws {
        let session = try await SecretServiceSession.start()
        defer { session.stop() }
        let keyring = SecretServiceKeyring(environment: session.environment)

        try await keyring.store(Secret("gb_alice"), for: "alice@gitbay.org")
        try await keyring.store(Secret("gb_alice_again"), for: "alice@gitbay.org")

        #expect(try await session.itemCount(matching: ["service": "gitbay-sync", "account": "alice@gitbay.org"]) == 1, "a store replaces")
        #expect(try await session.itemCount(matching: ["service": "gitbay-sync"]) == 1)
        #expect(try await session.itemCount(matching: ["account": "alice@gitbay.org"]) == 1)
        try await keyring.delete(account: "alice@gitbay.org")
        #expect(try await session.itemCount(matching: ["service": "gitbay-sync"]) == 0)
    }

    @Test("an empty keyring reads as no tokens, and deleting from it finds no item")
    func empty() async throws {
        let session = try await SecretServiceSession.start()
        defer { session.stop() }
        let keyring = SecretServiceKeyring(environment: session.environment)

        #expect(try await keyring.readAll().isEmpty)
        #expect(try await keyring.delete(account: "alice@gitbay.org") == .noItem)
    }

    @Test("reading 100 tokens is one search and one fetch of secrets")
    func oneQuery() async throws {
        let session = try await SecretServiceSession.start()
        defer { session.stop() }
        let keyring = SecretServiceKeyring(environment: session.environment)
        for index in 0..<100 {
            try await keyring.store(Secret("gb_token_\(index)"), for: "user\(index)@gitbay.org")
        }

        let monitor = try await session.monitor()
        let secrets = try await keyring.readAll()
        let calls = monitor.stop()

        #expect(secrets.count == 100)
        #expect(secrets["user42@gitbay.org"] == Secret("gb_token_42"))
        #expect(calls.filter { $0 == "org.freedesktop.Secret.Service.SearchItems" }.count == 1, "\(calls)")
        #expect(calls.filter { $0 == "org.freedesktop.Secret.Service.GetSecrets" }.count == 1)
        #expect(calls.filter { $0 == "org.freedesktop.Secret.Service.OpenSession" }.count == 1)
        #expect(!calls.contains("org.freedesktop.Secret.Item.GetSecret"), "no secret is fetched item by item")
    }

    @Test("two keyrings of two environments in one process each see their own session's items")
    func environmentsApart() async throws {
        let first = try await SecretServiceSession.start()
        defer { first.stop() }
        let second = try await SecretServiceSession.start()
        defer { second.stop() }

        try await SecretServiceKeyring(environment: first.environment).store(Secret("gb_first"), for: "alice@gitbay.org")
        async let fromFirst = SecretServiceKeyring(environment: first.environment).readAll()
        async let fromSecond = SecretServiceKeyring(environment: second.environment).readAll()

        #expect(try await fromFirst == ["alice@gitbay.org": Secret("gb_first")])
        #expect(try await fromSecond.isEmpty)
    }

    @Test("a locked keyring is reported locked by every call, and nothing is deleted")
    func locked() async throws {
        let session = try await SecretServiceSession.start()
        defer { session.stop() }
        let keyring = SecretServiceKeyring(environment: session.environment)
        try await keyring.store(Secret("gb_alice"), for: "alice@gitbay.org")
        try await session.lock()
        #expect(try await session.isLocked())

        await #expect(throws: KeyringUnavailable.locked) { try await keyring.readAll() }
        await #expect(throws: KeyringUnavailable.locked) { try await keyring.store(Secret("gb_new"), for: "bob@gitbay.org") }
        await #expect(throws: KeyringUnavailable.locked) { try await keyring.delete(account: "alice@gitbay.org") }
        #expect(try await session.isLocked(), "nothing unlocked it")
    }

    @Test("a locked keyring holding none of our items still reads as locked, not as empty")
    func lockedAndEmpty() async throws {
        let session = try await SecretServiceSession.start()
        defer { session.stop() }
        try await session.lock()

        await #expect(throws: KeyringUnavailable.locked) { try await SecretServiceKeyring(environment: session.environment).readAll() }
    }
}

extension SecretServiceKeyringTests {
    @Test("with unlocking allowed, an unlock prompt that nobody can answer leaves every call locked")
    func unlockingWithoutAnyone() async throws {
        let session = try await SecretServiceSession.start()
        defer { session.stop() }
        let keyring = SecretServiceKeyring(environment: session.environment, timeout: .seconds(5), unlocking: true)
        try await keyring.store(Secret("gb_alice"), for: "alice@gitbay.org")
        try await session.lock()

        // gnome-keyring asks through a prompter that this headless session does not have: the
        // prompt is dismissed, and the items stay locked.
        await #expect(throws: KeyringUnavailable.locked) { try await keyring.readAll() }
        await #expect(throws: KeyringUnavailable.locked) { try await keyring.store(Secret("gb_bob"), for: "bob@gitbay.org") }
        await #expect(throws: KeyringUnavailable.locked) { try await keyring.delete(account: "alice@gitbay.org") }
        #expect(try await session.isLocked())
    }
}
