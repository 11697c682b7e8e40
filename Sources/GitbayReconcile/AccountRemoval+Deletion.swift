import GitbayKeyring
import GitbayState
import GitbaySupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The end of a removal: the account's tokens revoked (unless the server could not be
/// reached), then the account, its token, its records and its keyring items deleted.
extension AccountRemoval {
    /// Revokes the token (unless the server could not be reached), then deletes the account.
    func revokeAndDelete(_ account: AccountRecord, outcome: AccountOutcome, hold: RemovalHold?, force: Bool) async throws -> Result {
        var (outcome, hold) = (outcome, hold)
        let stored: StoredAPIToken?
        var unread: String??
        switch await storedToken(of: account) {
        case .success(let found): stored = found
        case .failure(let unavailable):
            // The keyring holds the token and does not answer: it cannot be revoked yet.
            let name = (try? await reconciler.store.apiTokenDetails(ofAccount: account.id))??.name
            let revocation = RemovalHold.revocationFailed(name: name ?? "", failure: .local(.keyring(unavailable)))
            guard force else {
                await saveHeldStatus(account, detail: Self.revocationFailedDetail, error: unavailable.description)
                return .kept(Self.held(outcome, revocation.failure), reason: revocation)
            }
            (stored, hold, unread) = (nil, hold ?? revocation, .some(name))
        }
        // Checked after the read: a sign-in since the removal began replaced the token and its name.
        guard try await isStillRemoving(account) else { return .signedInAgain(try await stillSignedIn(account, outcome)) }
        var token = Self.unsent(stored, refused: outcome.condition == .authFailed)
        if let unread {
            // Not read, so not revoked: whatever its name, it stays valid.
            let staleLeft = (try? await reconciler.store.apiTokenRecords()[account.id]?.staleNames) ?? []
            token = TokenRevocation(.unread(name: unread), staleLeft: staleLeft.filter { $0 != unread })
        }
        // The server answered the deregistration: the tokens are revoked there, the last requests sent with the current one.
        if hold?.deregistered ?? true, let stored, stored.details.name != nil || !stored.staleNames.isEmpty {
            let revocation: RemovalHold
            switch await revoke(stored, of: account, outcome: &outcome) {
            case .success(let revoked):
                token = revoked
                guard case .stillValid(let name, let nameKnown) = revoked.current else { break }
                revocation = .tokenStillValid(name: name, nameKnown: nameKnown)
                guard force else {
                    await saveHeldStatus(account, detail: Self.tokenStillValidDetail, error: revocation.failure.description)
                    return .kept(Self.held(outcome, revocation.failure), reason: revocation)
                }
                hold = hold ?? revocation
            case .failure(let failure):
                revocation = .revocationFailed(name: failure.name, failure: failure.failure)
                // A stop cut it short: held whatever `force` says, as the user asked to stop, not to delete.
                guard force, !revocation.revocationInterrupted else {
                    let detail = revocation.revocationInterrupted ? Self.revocationInterruptedDetail : Self.revocationFailedDetail
                    await saveHeldStatus(account, detail: detail, error: failure.failure.description)
                    return .kept(Self.held(outcome, revocation.failure), reason: revocation)
                }
                hold = hold ?? revocation
            }
        }
        return try await delete(account, outcome: outcome, hold: hold, token: token)
    }

    /// What became of the tokens when no revocation was sent: the current one refused (the
    /// server said so) or left valid, and every stale one left.
    static func unsent(_ stored: StoredAPIToken?, refused: Bool) -> TokenRevocation {
        guard let stored else { return .unnamed }
        let name = stored.details.name
        let current: TokenRevocation.Current = refused ? .refused(name: name) : name.map { .notRevoked(name: $0) } ?? .unnamed
        return TokenRevocation(current, staleLeft: stored.staleNames.filter { $0 != name })
    }

    /// Deletes the account, its token and its records, once nothing (or `--force`) holds it.
    func delete(_ account: AccountRecord, outcome: AccountOutcome, hold: RemovalHold?, token: TokenRevocation) async throws -> Result {
        var outcome = outcome
        let store = reconciler.store
        let left = try await store.registrations(ofAccount: account.id).map(\.deviceID)
        let items = try await store.allKeyringItems(ofAccount: account.id)
        switch try await store.deleteAccount(id: account.id, removalStartedAt: account.removalStartedAt) {
        case .notRemoving:
            return .signedInAgain(try await stillSignedIn(account, outcome))
        case .deleted(let wiped):
            var token = token
            token.keyringLeft = await forgetKeyringItems(items, of: account)
            if let hold {
                outcome = Self.held(outcome, hold.failure)
                outcome.action = .removed
                return .forced(outcome, rowsLeft: left, reason: hold, tokenWiped: wiped, token: token)
            }
            outcome.action = .removed
            return .removed(outcome, tokenWiped: wiped, token: token)
        }
    }

    /// The account's token with its name and stale names, from the keyring when it lives there.
    func storedToken(of account: AccountRecord) async -> Swift.Result<StoredAPIToken?, KeyringUnavailable> {
        let store = reconciler.store
        guard (try? await store.tokenPlaces()[account.id]) == .keyring else {
            return .success(try? await store.storedAPIToken(ofAccount: account.id))
        }
        do {
            let token = try await reconciler.tokens.token(of: account)
            return .success(try? await store.storedAPIToken(ofAccount: account.id, token: token))
        } catch let unavailable as KeyringUnavailable {
            return .failure(unavailable)
        } catch {
            return .success(nil)
        }
    }

    /// Once the account is deleted: the keyring items of its tokens, when the keyring held any;
    /// those left, and why, when it did not answer.
    func forgetKeyringItems(_ items: [String], of account: AccountRecord) async -> KeyringItemsLeft? {
        let left = await reconciler.tokens.forget(items: items)
        if let left {
            reconciler.logger.warning("token.left-in-keyring", ["account.name": account.name, "reason": left.reason.description])
        }
        return left
    }
}
