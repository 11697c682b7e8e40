import GitbayKeyring
import GitbayState
import GitbaySupport

/// What became of a token kept in the database until a keyring answers (by an earlier
/// version, or by a sign-in where none did), once a run offered it to the keyring.
package enum TokenMove: Sendable, Equatable {
    /// The keyring holds it; the database keeps only the reference. `wiped`: its bytes are
    /// gone from the files too (false: they leave at the next checkpoint).
    case moved(wiped: Bool)
    /// The keyring did not take it now (locked, slow): it stays in the database, and the next
    /// run offers it again.
    case waiting(KeyringUnavailable)
}

extension APITokens {
    /// Moves the tokens kept in the database until a keyring answers (`awaiting`, by account
    /// id; stored by an earlier version or by a sign-in where no keyring answered) into the
    /// keyring: each stored there first, then wiped from the database, so that a failure
    /// leaves the token where it was. A keyring that is absent (no session bus, no Secret
    /// Service: a headless machine) leaves them for a later run without a word, as `login`
    /// said where it kept them; one that is locked or slow leaves them for the next run, and
    /// says so. Does nothing without a keyring, or with nothing awaiting it.
    ///
    /// The tokens and the install marker are the run's facts (`RunFacts.apiTokens`): a token
    /// replaced since (a sign-in) is not wiped, since the database keeps only the reference
    /// if it still holds the token the keyring was given (`keepOnlyReference`).
    func moveIntoKeyring(
        _ awaiting: Set<Int64>, of accounts: [AccountRecord], tokens: [Int64: Secret], installMarker: String, logger: Logger
    ) async -> [Int64: TokenMove] {
        guard !awaiting.isEmpty, let keyring else { return [:] }
        var moves: [Int64: TokenMove] = [:]
        var refusal: KeyringUnavailable?
        for account in accounts where awaiting.contains(account.id) {
            if let refusal {
                // An absent keyring leaves the rest as they are, without a word: nothing more to look at.
                if refusal.isAbsent { break }
                if tokens[account.id] != nil { moves[account.id] = .waiting(refusal) }
                continue
            }
            guard let token = tokens[account.id] else { continue }
            do {
                let item = Self.installItem(of: account.name, installMarker: installMarker)
                try await keyring.store(token, for: item)
                guard let kept = try? await store.keepOnlyReference(ofAccount: account.id, token: token, keyringItem: item), kept.moved else {
                    await forgetUnnamed(item, of: account.id)
                    continue
                }
                moves[account.id] = .moved(wiped: kept.wiped)
                logger.info("token.moved-to-keyring", ["account.name": account.name])
            } catch {
                refusal = error
                if !error.isAbsent { moves[account.id] = .waiting(error) }
            }
        }
        if let refusal { logger.info("token.awaiting-keyring", ["accounts": String(awaiting.count), "reason": "\(refusal)"]) }
        return moves
    }

    /// Deletes `item`, just written for the account, unless the database names it: the account's
    /// token changed meanwhile (a sign-in), so the item holds a token nothing uses; or another
    /// run moved the same token there first, and it stays.
    func forgetUnnamed(_ item: String, of account: Int64) async {
        guard let keyring, let items = try? await store.keyringItems(), items[account] != item else { return }
        _ = try? await keyring.delete(account: item)
    }
}
