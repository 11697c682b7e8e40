import GitbayAPI
import GitbayState
import GitbaySupport

/// The store's side of a pass's steps, and the clients the passes send with: what
/// `PassPool` runs as short tasks. It decides nothing but what the store answered.
struct PassStore: Sendable {
    let store: StateStore
    let options: Reconciler.Options
    let logger: Logger
    /// Where the accounts' API tokens are read.
    let tokens: APITokens
    /// The clients' configuration, one for all of them.
    let client: SharedClientConfiguration

    init(store: StateStore, options: Reconciler.Options, logger: Logger, tokens: APITokens) {
        (self.store, self.options, self.logger, self.tokens) = (store, options, logger, tokens)
        client = SharedClientConfiguration(options.client)
    }

    /// An account read afresh for another pass: the client and token for it.
    struct Fresh: Sendable {
        let client: Result<GitbayClient, any Error>
        let token: Secret?
    }

    /// What is fixed for the round's passes.
    func settings(doubtMark: Int64) -> AccountPass.Settings {
        AccountPass.Settings(backoffCeiling: options.backoffCeiling, doubtMark: doubtMark)
    }

    /// The account's client for a pass; it fails like a refused token without a stored one.
    func makeClient(_ account: AccountRecord, token: Secret?) throws -> GitbayClient {
        try GitbayClient.forAccount(account, token: token, configuration: client, logger: logger)
    }

    /// The event a store step ends with.
    func carryOut(_ step: AccountPass.Step, of pass: AccountPass, token: Secret?, logger: Logger) async -> AccountPass.Event {
        let account = pass.account
        do {
            switch step {
            case .takeLease(let records):
                return .lease(try await store.takeLease(ofAccount: account.id, holder: options.leaseHolder, ifRecords: records, now: options.now()))
            case .checkStillWanted(let snapshot):
                return .stillWanted(try await store.desireSnapshot(ofAccount: account.id) == snapshot)
            case .record(let record):
                try await store.recordRegistration(
                    record, afterAddSentAt: pass.addSentAt, undecided: pass.work.undecided.map { ($0.id, $0.added) })
                return .stored
            case .readDoubt:
                return .doubt(try await store.rowDoubt(ofAccount: account.id))
            case .recordSameServer(let proof):
                let new = try await store.recordSameServer(proof)
                if new {
                    logger.info(
                        "instance.same-server",
                        ["instance": proof.instance.description, "instance.other": proof.other.description, "device.id": String(proof.deviceID)])
                }
                return .proven(new)
            case .forget(let id, let reason):
                logger.info("registration.forget", ["account.name": account.name, "device.id": String(id), "reason": reason.rawValue])
                try await store.forgetRegistration(accountID: account.id, deviceID: id)
                return .stored
            case .save(let status, let snapshot):
                // A token refused after another process replaced it (a rotation, a sign-in) says
                // nothing of the token stored now: the pass is planned again with that one.
                if status.condition == .authFailed, await tokens.mayHaveReplaced(token, of: account) { return .saved(false) }
                return .saved(
                    try await store.saveStatus(status, ofAccount: account.id, settlingDoubtsThrough: pass.settings.doubtMark, ifStill: snapshot))
            case .giveBackLease:
                try? await store.releaseLeases([account.id], holder: options.leaseHolder)
                return .leaseGivenBack
            case .list, .add, .remove, .readAfresh, .finish:
                preconditionFailure("\(step) is not a store step")
            }
        } catch {
            return .failed(AccountFailure(error))
        }
    }

    /// Leaves in doubt the rows of the current token recorded under other names than the
    /// pass's account's: a fact each of those accounts' own next pass reads.
    func doubtOtherNames(after pass: AccountPass) async {
        guard let fingerprint = pass.device.tokenIdentity?.fingerprint else { return }
        try? await store.doubtRows(holdingFingerprint: fingerprint, by: pass.account.instance, at: options.now())
    }

    /// The account as read afresh for another pass, and the client for it (none when the read
    /// fails or the account is gone).
    func readAfresh(_ id: Int64) async -> (AccountPass.Event, Fresh?) {
        do {
            guard let account = try await store.account(id: id), let snapshot = try await store.desireSnapshot(ofAccount: id) else {
                return (.fresh(nil), nil)
            }
            let fresh = AccountPass.Fresh(
                account: account, snapshot: snapshot, device: try await store.device(), status: try await store.status(ofAccount: id),
                records: try await store.registrations(ofAccount: id))
            let token = try await tokens.token(of: account)
            return (.fresh(fresh), Fresh(client: Result { try makeClient(account, token: token) }, token: token))
        } catch {
            return (.failed(AccountFailure(error)), nil)
        }
    }
}
