import GitbayKeyring
import GitbayState
import GitbaySupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Where a sign-in asks its API token to be kept.
package enum TokenStoreChoice: String, Sendable, Equatable, CaseIterable {
    /// The OS keyring, or nothing is stored.
    case keyring
    /// The database.
    case database
}

/// Where a sign-in kept its API token.
package struct KeptToken: Sendable, Equatable {
    package let place: TokenPlace
    /// Why the keyring did not take it, when it went to the database without being asked to.
    package let keyringUnavailable: KeyringUnavailable?

    package init(place: TokenPlace, keyringUnavailable: KeyringUnavailable? = nil) {
        self.place = place
        self.keyringUnavailable = keyringUnavailable
    }
}

extension APITokens {
    /// Where a verified sign-in's token goes, storing it in the keyring when it goes there:
    /// the keyring when `choice` asks for it (a keyring that does not answer is the sign-in's
    /// failure, and nothing is stored) or asks for nothing and one answers; else the
    /// database: for good when asked for, else until a run finds a keyring that answers
    /// (`moveIntoKeyring`), with the keyring's reason.
    func keep(_ token: Secret, for name: String, choice: TokenStoreChoice?) async throws(SyncEngine.SignInFailure) -> KeptToken {
        guard choice != .database else { return KeptToken(place: .database) }
        do throws(KeyringUnavailable) {
            guard let keyring else { throw Self.noKeyring }
            try await keyring.store(token, for: name)
            return KeptToken(place: .keyring)
        } catch {
            if choice == .keyring { throw .keyringUnavailable(error) }
            return KeptToken(place: .awaitingKeyring, keyringUnavailable: error)
        }
    }

    /// Stores a verified sign-in: the token where `keep` puts it, then the account with only a
    /// reference when the keyring holds it. A new account's token goes to the keyring item
    /// named after it and this install (`installItem`). An account signed in already keeps the token in use where it is until
    /// the database points at the new one, as a rotation does: the new token goes to an item
    /// the old one is not in (nor the install's item while the old token awaits the keyring: a
    /// run moving it writes there), recorded (with its name) as stale first, so that a crash between
    /// the keyring and the database leaves the old token in use and a stale one the next run
    /// revokes and deletes (not for an account being removed, whose removal would revoke it;
    /// there such a crash leaves the new item unnamed). The item that held the old token is
    /// deleted last.
    func signIn(
        instance: InstanceURL, username: String, apiToken: Secret, details: APITokenDetails, choice: TokenStoreChoice?, now: Date
    ) async throws -> (account: AccountRecord, kept: KeptToken) {
        let name = AccountRecord.name(username: username, instance: instance)
        // The item names this install too: another database signed in to the account has its own.
        let own = Self.installItem(of: name, installMarker: try await store.device().installMarker)
        var previous: String?
        var item = own
        var recorded: (account: Int64, tokenName: String)?
        if let existing = try await store.account(named: name) {
            previous = try await store.keyringItems()[existing.id]
            // Not the install's item while the old token is in it, or may be written to it by a
            // run moving a token that awaited the keyring (none in the keyring yet).
            if previous == own || previous == nil {
                let digits = Timestamp.format(now).filter(\.isNumber)
                item = TokenRotation.keyringItem(of: own, tokenName: details.name ?? "signed-in-\(digits)")
            }
            // Not for an account being removed: its removal, under way in a run, would read the
            // name as one to revoke, and revoke the token this sign-in is storing.
            if choice != .database, keyring != nil, let tokenName = details.name,
                try await store.recordStaleTokenNames([tokenName], ofAccount: existing.id, keyringItem: item, unlessRemoving: true, now: now)
            {
                recorded = (existing.id, tokenName)
            }
        }
        let kept = try await keep(apiToken, for: item, choice: choice)
        if kept.place != .keyring, let recorded {
            // The keyring did not take it: no item of it is left to delete, and the sign-in forgets its name.
            try await store.releaseStaleKeyringItem(named: recorded.tokenName, ofAccount: recorded.account)
        }
        let account: AccountRecord
        do {
            account = try await store.signIn(
                instance: instance, username: username, apiToken: apiToken, details: details, place: kept.place,
                keyringItem: item, now: now)
        } catch {
            // Nothing points at the item it was just written to: it goes, so that a failed sign-in leaves nothing.
            if kept.place == .keyring, item != previous { _ = try? await keyring?.delete(account: item) }
            throw error
        }
        if let previous, previous != item || kept.place != .keyring { _ = try? await keyring?.delete(account: previous) }
        return (account, kept)
    }
}
