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
