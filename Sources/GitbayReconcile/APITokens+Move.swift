import GitbayKeyring
import GitbayState
import GitbaySupport

/// What became of a token an earlier version kept in the database, once a run offered it to
/// the keyring.
package enum TokenMove: Sendable, Equatable {
    /// The keyring holds it; the database keeps only the reference. `wiped`: its bytes are
    /// gone from the files too (false: they leave at the next checkpoint).
    case moved(wiped: Bool)
    /// There is no keyring here: it stays in the database for good.
    case keptInDatabase(KeyringUnavailable)
    /// The keyring did not take it now (locked, slow): it stays in the database, and the next
    /// run offers it again.
    case waiting(KeyringUnavailable)
}

extension APITokens {
    /// Moves the tokens an earlier version kept in the database (`awaiting`, by account id)
    /// into the keyring: each stored there first, then wiped from the database, so that a
    /// failure leaves the token where it was. A keyring that is absent keeps all of them in
    /// the database for good; one that is locked or slow leaves them for the next run. Does
    /// nothing without a keyring, or with nothing awaiting it.
    func moveIntoKeyring(_ awaiting: Set<Int64>, of accounts: [AccountRecord], logger: Logger) async -> [Int64: TokenMove] {
        guard !awaiting.isEmpty, let keyring, let tokens = try? await store.tokensAwaitingKeyring(),
            let installMarker = try? await store.device().installMarker
        else { return [:] }
        var moves: [Int64: TokenMove] = [:]
        var refusal: KeyringUnavailable?
        for account in accounts {
            guard let token = tokens[account.id] else { continue }
            if let refusal {
                moves[account.id] = refusal.isAbsent ? .keptInDatabase(refusal) : .waiting(refusal)
                continue
            }
            do {
                let item = Self.installItem(of: account.name, installMarker: installMarker)
                try await keyring.store(token, for: item)
                guard let kept = try? await store.keepOnlyReference(ofAccount: account.id, token: token, keyringItem: item), kept.moved else {
                    continue
                }
                moves[account.id] = .moved(wiped: kept.wiped)
                logger.info("token.moved-to-keyring", ["account.name": account.name])
            } catch {
                refusal = error
                moves[account.id] = error.isAbsent ? .keptInDatabase(error) : .waiting(error)
            }
        }
        let kept = moves.compactMap { id, move in if case .keptInDatabase = move { id } else { nil } }
        if !kept.isEmpty {
            try? await store.keepInDatabase(accounts: kept)
            logger.warning("token.kept-in-database", ["accounts": String(kept.count), "reason": refusal.map(String.init(describing:)) ?? ""])
        }
        return moves
    }
}
