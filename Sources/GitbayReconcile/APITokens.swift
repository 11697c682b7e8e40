import GitbayKeyring
import GitbayState
import GitbaySupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The accounts' API tokens where they live: in the database, or in the OS keyring, whose
/// item (account: the account's name, or the name the database gives after a rotation) holds
/// the token of an account whose row keeps only a reference. A run reads the keyring once for
/// all its accounts, and not at all when none keeps its token there.
package struct APITokens: Sendable {
    let store: StateStore
    /// Nil: no keyring is used here; an account whose token is in one waits, as it does for
    /// a keyring that does not answer.
    let keyring: (any TokenKeyring)?

    package init(store: StateStore, keyring: (any TokenKeyring)?) {
        self.store = store
        self.keyring = keyring
    }

    /// The keyring item (its `account` attribute) of `account`'s token in the database whose
    /// install marker is `installMarker`: the account and the install, so that two databases
    /// signed in to one account never write over or delete each other's token. An earlier
    /// version named the item after the account alone; a run moves such an item here.
    package static func installItem(of account: String, installMarker: String) -> String {
        account + " " + installMarker
    }

    /// Why the keyring cannot be read when none is used here.
    static let noKeyring = KeyringUnavailable.noService(detail: "this program was given no keyring to use")

    /// Every token the keyring holds, by item (the account's name, or a rotation's own item).
    func readKeyring() async throws(KeyringUnavailable) -> [String: Secret] {
        guard let keyring else { throw Self.noKeyring }
        return try await keyring.readAll()
    }

    /// The tokens of `accounts` for a run: the database's as `facts` read them, and the
    /// keyring's in one query when one of them keeps its token there. The keyring's reason
    /// when it could not be read, for the accounts whose token it holds.
    func tokens(of accounts: [AccountRecord], facts: RunFacts) async -> (tokens: [Int64: Secret], unavailable: KeyringUnavailable?) {
        var tokens = facts.apiTokens
        let inKeyring = accounts.filter { facts.keyringTokens.contains($0.id) }
        guard !inKeyring.isEmpty else { return (tokens, nil) }
        do {
            let stored = try await readKeyring()
            for account in inKeyring { tokens[account.id] = stored[facts.keyringItems[account.id] ?? account.name] }
            let named = inKeyring.filter { (facts.keyringItems[$0.id] ?? $0.name) == $0.name }
            await moveToInstallItems(named, stored, installMarker: facts.device.installMarker)
            return (tokens, nil)
        } catch {
            return (tokens, error)
        }
    }

    /// Moves the tokens of `accounts` that sit in an item named after the account alone (an
    /// earlier version wrote it) to this install's item: written there, the database pointed
    /// at it, then the old item deleted. A failure leaves the token where it was, for the next run.
    private func moveToInstallItems(_ accounts: [AccountRecord], _ stored: [String: Secret], installMarker: String) async {
        guard let keyring, !installMarker.isEmpty else { return }
        for account in accounts {
            guard let token = stored[account.name] else { continue }
            let item = Self.installItem(of: account.name, installMarker: installMarker)
            do {
                try await keyring.store(token, for: item)
                guard (try? await store.pointAtKeyringItem(item, ofAccount: account.id)) == true else {
                    await forgetUnnamed(item, of: account.id)
                    continue
                }
                try await keyring.delete(account: account.name)
            } catch {
                // Where the token stays readable: the item it was in, or the install's once the database names it.
                continue
            }
        }
    }

    /// One account's token, wherever it lives; nil when none is stored. Throws
    /// `KeyringUnavailable` when the keyring holds it and does not answer.
    package func token(of account: AccountRecord) async throws -> Secret? {
        guard let item = try await store.keyringItems()[account.id] else { return try await store.apiToken(ofAccount: account.id) }
        return try await readKeyring()[item]
    }

    /// Whether `account`'s stored token may no longer be `sent`: it is another, or it cannot
    /// be read to tell (a keyring another process is changing, or one that stopped answering).
    /// A refusal of `sent` then says nothing of the token stored now.
    func mayHaveReplaced(_ sent: Secret?, of account: AccountRecord) async -> Bool {
        guard let stored = try? await token(of: account) else { return true }
        return stored != sent
    }

    /// The tokens of `accounts` wherever they live, the keyring read once when it holds any
    /// of theirs: each account's token, or the keyring's reason when it holds the account's
    /// and cannot be read. An account without a token is missing.
    package func tokens(of accounts: [AccountRecord]) async throws -> [Int64: Result<Secret, KeyringUnavailable>] {
        let items = try await store.keyringItems()
        var tokens: [Int64: Result<Secret, KeyringUnavailable>] = [:]
        for account in accounts where items[account.id] == nil {
            tokens[account.id] = try await store.apiToken(ofAccount: account.id).map { .success($0) }
        }
        let inKeyring = accounts.filter { items[$0.id] != nil }
        guard !inKeyring.isEmpty else { return tokens }
        do {
            let stored = try await readKeyring()
            for account in inKeyring { tokens[account.id] = items[account.id].flatMap { stored[$0] }.map { .success($0) } }
        } catch {
            for account in inKeyring { tokens[account.id] = .failure(error) }
        }
        return tokens
    }

    /// The account whose API token this is, wherever it is kept, if one has it.
    func account(holding token: Secret) async throws -> AccountRecord? {
        if let account = try await store.account(holdingAPIToken: token) { return account }
        let items = try await store.keyringItems()
        guard !items.isEmpty, let stored = try? await readKeyring() else { return nil }
        return try await store.accounts().first { account in items[account.id].map { stored[$0] == token } ?? false }
    }

    /// After the account's deletion: the keyring items its tokens were kept in (its current
    /// token's and its stale tokens'). Nil when there was none to delete or all are gone; the
    /// reason when one is left behind.
    func forget(items: [String]) async -> KeyringItemsLeft? {
        guard !items.isEmpty, let keyring else { return nil }
        var left: KeyringItemsLeft?
        for item in items {
            do {
                try await keyring.delete(account: item)
            } catch {
                left = KeyringItemsLeft(items: (left?.items ?? []) + [item], reason: left?.reason ?? error)
            }
        }
        return left
    }
}
