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

    /// A renewal under way: the account and its token as read under its lease, the machine,
    /// and the client of the token.
    struct Renewal: Sendable {
        let account: AccountRecord
        let stored: StoredAPIToken
        let client: GitbayClient
        /// The lease was taken for the renewal (false: this run held it already).
        let leaseTaken: Bool
        var machine: RenewalMachine
        /// Requests of a successor's own client, when it discards itself.
        var discarded = 0
    }

    /// The renewal of `outcome`'s account and its first step, when its pass reached the server
    /// and did not fail (active or paused, not one left waiting out a backoff, failed, or
    /// being removed), its token needs it, and the run may still start work; else nil.
    /// `token` is the one the pass was given: the keyring is not read again, and an account
    /// whose token it did not give (locked, absent) is not renewed. The account and its token's
    /// record are read once its lease is held, so that a rotation or sign-in by another process
    /// is seen; another process holding the lease leaves the renewal to it or the next run.
    /// A store that cannot say what is due fails the renewal (thrown), tried again next run.
    func begin(_ outcome: AccountOutcome, token: Secret?, marker: String) async throws -> (Renewal, RenewalMachine.Effect)? {
        guard let token, !outcome.isFailure, outcome.action != .skipped, options.mayStartMore() else { return nil }
        let holder = options.leaseHolder
        guard let grant = try? await store.takeLeases([outcome.accountID], holder: holder), grant.heldElsewhere.isEmpty else { return nil }
        let leaseTaken = grant.taken.contains(outcome.accountID)
        let due: (AccountRecord, StoredAPIToken)?
        do {
            if let account = try await store.account(id: outcome.accountID), account.state != .removing,
                let stored = try await store.storedAPIToken(ofAccount: account.id, token: token),
                TokenRotation.need(stored.details, staleNames: stored.staleNames, installMarker: marker, now: options.now()).isNeeded
            {
                due = (account, stored)
            } else {
                due = nil
            }
        } catch {
            if leaseTaken { try? await store.releaseLeases([outcome.accountID], holder: holder) }
            throw error
        }
        guard let (account, stored) = due else {
            if leaseTaken { try? await store.releaseLeases([outcome.accountID], holder: holder) }
            return nil
        }
        let client = GitbayClient(
            instance: account.instance, apiToken: stored.token, accountName: account.name, configuration: options.client, logger: logger)
        var machine = RenewalMachine(
            RenewalMachine.Facts(
                details: stored.details, staleNames: stored.staleNames, keyringItem: stored.keyringItem, staleItems: stored.staleItems,
                accountName: account.name, installMarker: marker, keyringPresent: options.keyring != nil))
        let first = machine.start(at: options.now())
        return (Renewal(account: account, stored: stored, client: client, leaseTaken: leaseTaken, machine: machine), first)
    }

    /// `outcome` with what the finished renewal did: a refusal of the token is recorded
    /// (`auth-failed`) only while the refused token is still the account's. Gives the lease back.
    func end(_ renewal: Renewal, _ last: RenewalMachine.Effect, outcome: AccountOutcome) async -> AccountOutcome {
        guard case .finish(var done, let refused) = last else { preconditionFailure("a renewal ended on \(last)") }
        var outcome = outcome
        let account = renewal.account
        if let refused {
            if await APITokens(store: store, keyring: options.keyring).mayHaveReplaced(renewal.stored.token, of: account) {
                // Another process renewed or replaced the token since the pass read it: the old one was refused.
                done.failure = nil
                logger.info("token.renew-superseded", ["account.name": account.name])
            } else {
                await self.refused(account, refused, outcome: &outcome)
            }
        }
        if let unavailable = done.keyringUnavailable {
            logger.info("token.renew-waits-for-keyring", ["reason": unavailable.description])
        } else if let failure = done.failure {
            logger.info("token.renew-failed", ["error": failure.description])
        }
        outcome.tokenRenewal = done
        outcome.writes += renewal.machine.writes
        outcome.requests += renewal.client.requestCount + renewal.discarded
        if renewal.leaseTaken { try? await store.releaseLeases([account.id], holder: options.leaseHolder) }
        return outcome
    }

    /// The accounts whose token a run would renew now, wherever the token is kept, decided on
    /// what is recorded of the tokens alone (no token is read), and the install marker; nil
    /// when there are none.
    func dueAccounts() async throws -> (accounts: Set<Int64>, marker: String)? {
        let now = options.now()
        // Only the tokens with a name or stale names: nothing else is ever renewed or cleaned up after.
        let records = try await store.apiTokenRecords(renewable: true)
        // Nothing is read beyond the records unless there are some, and then only the install marker.
        guard !records.isEmpty else { return nil }
        let marker = try await store.device().installMarker
        let due = records.filter { _, record in
            TokenRotation.need(record.details, staleNames: record.staleNames, installMarker: marker, now: now).isNeeded
        }
        return due.isEmpty ? nil : (Set(due.keys), marker)
    }

    /// Starts the request `effect` asks for with the renewal's client; `answered` gets what
    /// came of it. Cancelling the transfer answers it as failed by the cancellation.
    func start(
        _ effect: RenewalMachine.Effect, of renewal: Renewal, answered: @escaping @Sendable (RenewalMachine.Answer) -> Void
    ) -> TransportTransfer {
        let client = renewal.client
        switch effect {
        case .listTokens:
            return client.startListingTokens { result in
                answered(
                    Self.answer(result) { tokens in
                        var expiries: [String: Date] = [:]
                        for token in tokens { expiries[token.name] = SyncEngine.wholeSecond(Timestamp.parse(token.expiresAt)) }
                        return .listed(Set(tokens.map(\.name)), expiries: expiries)
                    })
            }
        case .revoke(let name):
            return client.startRevokingToken(named: name) { answered(.revoke(RevocationMachine.RevokeAnswer($0))) }
        case .mint(let name, let ttl):
            return client.startCreatingToken(named: name, ttl: ttl) { answered(Self.answer($0) { .minted($0.token) }) }
        case .learnExpiry(let name):
            return client.startListingTokens { answered(.expiry(SyncEngine.expiry(of: name, in: $0))) }
        default:
            preconditionFailure("\(effect) is not a request")
        }
    }

    /// What a request's `result` says to the machine: `success` made of its value, a refusal
    /// as refused, any other failure as failed.
    private static func answer<Value>(
        _ result: Result<Value, GitbayError>, _ success: (Value) -> RenewalMachine.Answer
    ) -> RenewalMachine.Answer {
        switch result {
        case .success(let value): success(value)
        case .failure(let error) where error.kind == .authFailed: .failed(.refused(error))
        case .failure(let error): .failed(.other(.server(error)))
        }
    }

    /// Carries out one step of the renewal in the store or the keyring; what came of it, for
    /// its machine. A successor that discards itself counts its requests in `renewal`.
    func carryOut(_ effect: RenewalMachine.Effect, of renewal: inout Renewal) async -> RenewalMachine.Answer {
        let account = renewal.account
        do {
            switch effect {
            case .listTokens, .revoke, .mint, .learnExpiry, .finish:
                preconditionFailure("\(effect) is not a step of the store or the keyring")
            case .recordExpiry(let expiresAt, let name):
                try await store.setAPITokenExpiry(expiresAt, ofAccount: account.id, named: name)
            case .forgetPendingMint(let name):
                try await store.forgetPendingMint(name, instance: account.instance)
            case .deleteItem(let item):
                try await deleteItem(item)
            case .forgetStaleName(let name):
                try await store.forgetStaleTokenNames([name], ofAccount: account.id)
            case .recordSuccessor(let name, let item, let now):
                // Nothing is minted under a name no record holds: an account deleted meanwhile stops here.
                guard try await store.recordStaleTokenNames([name], ofAccount: account.id, keyringItem: item, now: now) else {
                    return .failed(.other(.local(.other("the account was deleted before its token's successor was recorded; none was minted"))))
                }
            case .storeInKeyring(let token, let item):
                guard let keyring = options.keyring else { throw APITokens.noKeyring }
                try await keyring.store(token, for: item)
            case .replace(let predecessor, let token, let item, let details, let now):
                return .replaced(
                    try await store.replaceAPIToken(
                        ofAccount: account.id, named: predecessor, with: token, keyringItem: item, details: details, now: now))
            case .discard(let token, let name, let item):
                renewal.discarded += await discard(token, named: name, item: item, of: account)
            }
            return .done
        } catch let error as GitbayError where error.kind == .authFailed {
            return .failed(.refused(error))
        } catch let error as KeyringUnavailable {
            // As for a run's read of the keyring: the account waits for it, never refused.
            return .failed(.keyring(error))
        } catch {
            return .failed(.other(AccountFailure(error)))
        }
    }

    /// A successor of no use (the account signed in again or is being removed meanwhile)
    /// revokes itself and leaves the keyring; its name stays stale until both are done. The
    /// requests it sent.
    private func discard(_ token: Secret, named name: String, item: String?, of account: AccountRecord) async -> Int {
        let own = GitbayClient(instance: account.instance, apiToken: token, accountName: account.name, configuration: options.client, logger: logger)
        let revoked = (try? await own.revokeToken(named: name)) != nil
        guard revoked else { return own.requestCount }
        if let item { guard (try? await deleteItem(item)) != nil else { return own.requestCount } }
        try? await store.forgetStaleTokenNames([name], ofAccount: account.id)
        return own.requestCount
    }

    /// Deletes a keyring item of a token no longer in use; one already gone is deleted too.
    private func deleteItem(_ item: String) async throws(KeyringUnavailable) {
        guard let keyring = options.keyring else { throw APITokens.noKeyring }
        try await keyring.delete(account: item)
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
