import GitbayAPI
import GitbayKeyring
import GitbayState
import GitbaySupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Carries out what `TokenRotation` decides for a run's accounts, each through its own client
/// and under its lease: revokes this install's stale tokens that `token list` still shows, then
/// mints the successor of a token near its expiry, stores it, and revokes the predecessor. A
/// crash between the mint and the store leaves the successor's name recorded (it is recorded
/// before the mint), and one after the store leaves the predecessor's: the next run revokes
/// whichever the server still lists. Only names this install recorded are ever revoked.
///
/// A token the keyring holds gets its successor in a keyring item of its own: minted (its name
/// and that item recorded as stale first), written to the new item, then made current in the
/// transaction that records the predecessor (and its item) as stale; then the predecessor is
/// revoked and its item deleted. A crash anywhere leaves the item in use and the database's
/// reference to it intact; the next run revokes the stale token the server still lists and
/// deletes its item, never the one in use.
struct TokenRenewer: Sendable {
    let store: StateStore
    let options: Reconciler.Options
    let logger: Logger

    /// `outcome` with its account's token renewed, when its pass reached the server and did
    /// not fail (active or paused, not one left waiting out a backoff, failed, or being
    /// removed), its token needs it, and the run may still start work; else as it is. `token`
    /// is the one the pass was given: the keyring is not read again, and an account whose
    /// token it did not give (locked, absent) is not renewed. `marker` is the install marker.
    func renewed(_ outcome: AccountOutcome, token: Secret?, marker: String) async throws -> AccountOutcome {
        guard let token, !outcome.isFailure, outcome.action != .skipped, options.mayStartMore(),
            let account = try await store.account(id: outcome.accountID), account.state != .removing,
            let stored = try await store.storedAPIToken(ofAccount: account.id, token: token),
            TokenRotation.need(stored.details, staleNames: stored.staleNames, installMarker: marker, now: options.now()).isNeeded
        else { return outcome }
        var outcome = outcome
        await renew(account, stored, installMarker: marker, outcome: &outcome)
        return outcome
    }

    /// The accounts whose token a run would renew now, wherever the token is kept, decided on
    /// what is recorded of the tokens alone (no token is read), and the install marker; nil
    /// when there are none.
    func dueAccounts() async throws -> (accounts: Set<Int64>, marker: String)? {
        let now = options.now()
        let records = try await store.apiTokenRecords()
        // Nothing is read beyond the records unless a token has a name, and then only the install marker.
        guard records.values.contains(where: { $0.details.name != nil || !$0.staleNames.isEmpty }) else { return nil }
        let marker = try await store.device().installMarker
        let due = records.filter { _, record in
            TokenRotation.need(record.details, staleNames: record.staleNames, installMarker: marker, now: now).isNeeded
        }
        return due.isEmpty ? nil : (Set(due.keys), marker)
    }

    /// Renews one account's token, holding its lease; another process holding it leaves the
    /// renewal to that process or the next run.
    private func renew(_ account: AccountRecord, _ stored: StoredAPIToken, installMarker: String, outcome: inout AccountOutcome) async {
        let holder = options.leaseHolder
        guard let grant = try? await store.takeLeases([account.id], holder: holder), grant.heldElsewhere.isEmpty else { return }
        let need = TokenRotation.need(stored.details, staleNames: stored.staleNames, installMarker: installMarker, now: options.now())
        let client = GitbayClient(
            instance: account.instance, apiToken: stored.token, accountName: account.name, configuration: options.client, logger: logger)
        var renewal = TokenRenewal()
        do {
            var details = stored.details
            if need.cleanUp { details = try await cleanUp(account, stored, installMarker: installMarker, client, &renewal) }
            // An expiry the list just told may be near already.
            if need.rotate || TokenRotation.need(details, staleNames: [], installMarker: installMarker, now: options.now()).rotate {
                try await rotate(account, stored, client, &renewal, outcome: &outcome)
            }
        } catch let error as GitbayError where error.kind == .authFailed {
            await refused(account, error, outcome: &outcome)
        } catch let error as KeyringUnavailable {
            // As for a run's read of the keyring: the account waits for it, never refused.
            logger.info("token.renew-waits-for-keyring", ["reason": error.description])
            (renewal.keyringUnavailable, renewal.failure) = (error, .local(.keyring(error)))
        } catch {
            logger.info("token.renew-failed", ["error": "\(error)"])
            renewal.failure = AccountFailure(error)
        }
        outcome.requests += client.requestCount
        outcome.tokenRenewal = renewal
        if grant.taken.contains(account.id) { try? await store.releaseLeases([account.id], holder: holder) }
    }

    /// Revokes the stale tokens the server still lists, and forgets every stale name checked;
    /// returns the current token's details, with the expiry the list told when none was known.
    private func cleanUp(
        _ account: AccountRecord, _ stored: StoredAPIToken, installMarker: String, _ client: GitbayClient, _ renewal: inout TokenRenewal
    ) async throws -> APITokenDetails {
        let tokens = try await client.listTokens()
        var details = stored.details
        if details.expiresAt == nil, details.lifetime != nil, let name = details.name,
            let expiresAt = SyncEngine.wholeSecond(Timestamp.parse(tokens.first(where: { $0.name == name })?.expiresAt))
        {
            // An expiry the sign-in or the rotation could not learn: the server's answer, now.
            try await store.setAPITokenExpiry(expiresAt, ofAccount: account.id, named: name)
            details.expiresAt = expiresAt
        }
        let listed = Set(tokens.map(\.name))
        for name in stored.staleNames where TokenRotation.isThisInstalls(name, installMarker: installMarker) {
            // The current token is never revoked here, whatever is recorded.
            if name != stored.details.name, listed.contains(name) {
                try await Self.revoke(name, with: client, gone: [.notFound])
                renewal.revoked.append(name)
                // Its user's account revoked it: no longer pending for another sign-in there.
                try await store.forgetPendingMint(name, instance: account.instance)
            }
            // Revoked or never minted: its item goes before its name, never the item in use.
            if let item = stored.staleItems[name], item != stored.keyringItem { try await deleteItem(item) }
            try await store.forgetStaleTokenNames([name], ofAccount: account.id)
        }
        return details
    }

    /// Mints the successor with the current token, stores it, then revokes the predecessor
    /// (and deletes its keyring item, when the keyring held it).
    private func rotate(
        _ account: AccountRecord, _ stored: StoredAPIToken, _ client: GitbayClient, _ renewal: inout TokenRenewal,
        outcome: inout AccountOutcome
    ) async throws {
        guard let name = stored.details.name, let lifetime = stored.details.lifetime else { return }
        let now = options.now()
        let successor = TokenRotation.successorName(of: name, at: now)
        guard successor != name else { return }
        // The keyring's token goes to an item of its own; nothing is minted with no keyring to take it.
        let item = stored.keyringItem.map { _ in TokenRotation.keyringItem(of: account.name, tokenName: successor) }
        guard item == nil || options.keyring != nil else { return }
        // Recorded before the mint: a crash after it leaves a name the next run can revoke, and an item it can delete.
        try await store.recordStaleTokenNames([successor], ofAccount: account.id, keyringItem: item, now: now)
        let minted = try await client.createToken(named: successor, ttl: TokenRotation.ttl(lifetime))
        outcome.writes += 1
        if let item, let keyring = options.keyring { try await keyring.store(minted.token, for: item) }
        // The server's expiry, never this machine's clock plus the lifetime; unknown until a run learns it, if the list fails.
        let expiresAt = await SyncEngine.serverExpiry(of: successor, client)
        let details = APITokenDetails(name: successor, expiresAt: expiresAt, lifetime: lifetime)
        guard
            try await store.replaceAPIToken(ofAccount: account.id, named: name, with: minted.token, keyringItem: item, details: details, now: now)
        else {
            await discard(minted.token, named: successor, item: item, of: account, outcome: &outcome)
            return
        }
        (renewal.predecessor, renewal.successor) = (name, successor)
        // Gone already, or no longer taken: revoked either way.
        try await Self.revoke(name, with: client, gone: [.notFound, .authFailed])
        outcome.writes += 1
        renewal.predecessorRevoked = true
        if let previous = stored.keyringItem { try await deleteItem(previous) }
        try await store.forgetStaleTokenNames([name], ofAccount: account.id)
    }

    /// A successor of no use (the account signed in again or is being removed meanwhile)
    /// revokes itself and leaves the keyring; its name stays stale until both are done.
    private func discard(_ token: Secret, named name: String, item: String?, of account: AccountRecord, outcome: inout AccountOutcome) async {
        let own = GitbayClient(instance: account.instance, apiToken: token, accountName: account.name, configuration: options.client, logger: logger)
        let revoked = (try? await own.revokeToken(named: name)) != nil
        outcome.requests += own.requestCount
        guard revoked else { return }
        if let item { guard (try? await deleteItem(item)) != nil else { return } }
        try? await store.forgetStaleTokenNames([name], ofAccount: account.id)
    }

    /// Deletes a keyring item of a token no longer in use; one already gone is deleted too.
    private func deleteItem(_ item: String) async throws(KeyringUnavailable) {
        guard let keyring = options.keyring else { throw APITokens.noKeyring }
        try await keyring.delete(account: item)
    }

    /// `token revoke <name>`, where an answer of one of the `gone` kinds counts as revoked.
    static func revoke(_ name: String, with client: GitbayClient, gone: [GitbayError.Kind]) async throws(GitbayError) {
        do {
            try await client.revokeToken(named: name)
        } catch {
            guard gone.contains(error.kind) else { throw error }
        }
    }

    /// Records a token the server refused during its renewal: `auth-failed`, until a new sign-in.
    private func refused(_ account: AccountRecord, _ error: GitbayError, outcome: inout AccountOutcome) async {
        var status = (try? await store.status(ofAccount: account.id)) ?? AccountStatusRecord()
        status.condition = .authFailed
        status.lastAttemptAt = options.now()
        status.lastError = String(describing: error)
        status.nextRetryAt = nil
        status.failures += 1
        try? await store.saveStatus(status, ofAccount: account.id)
        (outcome.action, outcome.condition, outcome.failure) = (.failed, .authFailed, .server(error))
    }
}
