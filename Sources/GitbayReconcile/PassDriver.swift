import GitbayAPI
import GitbayState
import GitbaySupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Carries an `AccountPass` out: each step over the account's own client (its token, its
/// instance) or the store, each answer or failure back as an event, until the pass finishes.
/// It decides nothing but what the transport and the store answered.
///
/// A task keeps every frame of its chain of awaits while a request is in flight, one task per
/// account in flight: what the loop carries (the pass, its step, the client) lives on one
/// object (`Carrier`), and each kind of step has an async function of its own, so that the
/// frames kept during a list hold little more than the list's own (none of them is inlined
/// into the loop, whose frame would then hold every step's values at once).
struct PassDriver: Sendable {
    let store: StateStore
    let options: Reconciler.Options
    let logger: Logger
    /// Where the accounts' API tokens are read.
    let tokens: APITokens

    /// The account's first pass and what carries it, built outside any async frame.
    @inline(never)
    func start(_ pass: () -> AccountPass, token: Secret?) -> Carrier {
        let pass = pass()
        return Carrier(
            pass: pass, client: Result { try makeClient(pass.account, token: token) }, token: token,
            logger: logger.with(["account.name": pass.account.name]))
    }

    /// The pass's result if its first list, started ahead (`Carrier.startFirstList`), answered
    /// `304` and the pass finishes on that, as the pass decides: then no task is needed. Nil
    /// leaves the carrier as it was, with the answer kept for the list step to read.
    func finished(_ carrier: Carrier, ahead: ListAhead) -> Reconciler.Reconciled? {
        carrier.ahead = ahead
        guard case .success(let client) = carrier.client, client.notModified(ahead: ahead) else { return nil }
        var pass = carrier.pass
        let step = pass.handle(.notModified)
        guard case .finish = step else { return nil }
        (carrier.pass, carrier.step, carrier.ahead) = (pass, step, nil)
        client.logNotModified(ahead: ahead)
        return finished(carrier, requests: 1)
    }

    /// The account's result. Not inlined into the account's task, whose frame is kept while
    /// the first list is in flight.
    @inline(never)
    func run(_ carrier: Carrier) async -> Reconciler.Reconciled {
        while !carrier.isFinished {
            await advance(carrier)
        }
        if carrier.addUnsettled { await doubtOtherNames(after: carrier.pass) }
        return finished(carrier, requests: carrier.spent + (await Self.requests(of: carrier.client)))
    }

    /// Carries out the step in hand and takes the next from the pass.
    @inline(never)
    private func advance(_ carrier: Carrier) async {
        let event: AccountPass.Event
        switch carrier.step {
        case .list: event = await list(carrier)
        case .add: event = await add(carrier)
        case .readAfresh: event = await readAfresh(carrier)
        case .finish: preconditionFailure("a finished pass has no step to carry out")
        default: event = await storeStep(carrier)
        }
        carrier.next(after: event)
    }

    /// The account's result, with every request its passes made.
    private func finished(_ carrier: Carrier, requests: Int) -> Reconciler.Reconciled {
        guard case .finish(var result) = carrier.step else { preconditionFailure("the pass has not finished") }
        result.outcome.requests = requests
        if result.outcome.action == .failed, result.steady == nil {
            carrier.logger.warning(
                "account.failed", ["account.name": result.outcome.account, "account.condition": result.outcome.condition.rawValue])
        }
        return result
    }

    private static func requests(of client: Result<GitbayClient, any Error>) async -> Int {
        await (try? client.get())?.requestCount ?? 0
    }

    /// `device list`, with the tag the pass sends.
    @inline(never)
    private func list(_ carrier: Carrier) async -> AccountPass.Event {
        let tag = carrier.tagToSend
        let client: GitbayClient
        switch carrier.client {
        case .success(let made): client = made
        case .failure(let error): return .noClient(error)
        }
        do {
            switch try await client.listDevices(ifNoneMatch: tag, ahead: carrier.takeAhead()) {
            case .list(let rows, let etag): return .listed(rows, etag: etag)
            case .notModified: return .notModified
            }
        } catch {
            return .failed(error)
        }
    }

    /// The event a store step, or a removal, ends with.
    @inline(never)
    private func storeStep(_ carrier: Carrier) async -> AccountPass.Event {
        let (account, logger) = (carrier.pass.account, carrier.logger)
        do {
            switch carrier.step {
            case .takeLease(let records):
                return .lease(try await store.takeLease(ofAccount: account.id, holder: options.leaseHolder, ifRecords: records, now: options.now()))
            case .checkStillWanted(let snapshot):
                return .stillWanted(try await store.desireSnapshot(ofAccount: account.id) == snapshot)
            case .remove(let id, let reason):
                logger.info("registration.remove", ["account.name": account.name, "device.id": String(id), "reason": reason.rawValue])
                _ = try await carrier.client.get().removeDevice(id: id)
                return .removed
            case .record(let record):
                try await store.recordRegistration(record, afterAddSentAt: carrier.pass.addSentAt)
                carrier.addUnsettled = false
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
                if status.condition == .authFailed, await storedTokenChanged(carrier) { return .saved(false) }
                return .saved(
                    try await store.saveStatus(
                        status, ofAccount: account.id, settlingDoubtsThrough: carrier.pass.settings.doubtMark, ifStill: snapshot))
            case .giveBackLease:
                try? await store.releaseLeases([account.id], holder: options.leaseHolder)
                return .leaseGivenBack
            case .list, .add, .readAfresh, .finish:
                preconditionFailure("\(carrier.step) has a function of its own")
            }
        } catch {
            return .failed(error)
        }
    }

    /// `device add`. One that fails unanswered, or answers without the row's id (v1.32.0) and
    /// is not settled by the pass's end, may have moved a row recorded under another name of
    /// this server: those rows are left in doubt (`doubtOtherNames`).
    @inline(never)
    private func add(_ carrier: Carrier) async -> AccountPass.Event {
        let pass = carrier.pass
        guard let token = pass.device.token, case .success(let client) = carrier.client else {
            preconditionFailure("a pass adds only with a device token and a client")
        }
        do {
            let answer = try await client.addDevice(token: token, label: pass.device.serverLabel)
            carrier.addUnsettled = answer.id == nil
            return .added(id: answer.id)
        } catch {
            await doubtOtherNames(after: pass)
            return .failed(error)
        }
    }

    /// Leaves in doubt the rows of the current token recorded under other names than the
    /// pass's account's: a fact each of those accounts' own next pass reads.
    private func doubtOtherNames(after pass: AccountPass) async {
        guard let fingerprint = pass.device.tokenIdentity?.fingerprint else { return }
        try? await store.doubtRows(holdingFingerprint: fingerprint, by: pass.account.instance, at: options.now())
    }

    /// The account's client for a pass; it fails like a refused token without a stored one.
    private func makeClient(_ account: AccountRecord, token: Secret?) throws -> GitbayClient {
        try GitbayClient.forAccount(account, token: token, configuration: options.client, logger: logger)
    }

    /// The account as read afresh for another pass, with the client for it.
    @inline(never)
    private func readAfresh(_ carrier: Carrier) async -> AccountPass.Event {
        carrier.logger.info("account.superseded", ["account.name": carrier.pass.account.name])
        let (event, fresh) = await readAfresh(carrier.pass.account.id)
        if let fresh {
            carrier.spent += await Self.requests(of: carrier.client)
            (carrier.client, carrier.token) = fresh
        }
        return event
    }

    /// Whether the account's stored API token is no longer the one its client sends.
    private func storedTokenChanged(_ carrier: Carrier) async -> Bool {
        guard let stored = try? await tokens.token(of: carrier.pass.account) else { return false }
        return stored != carrier.token
    }

    /// The account as read afresh for another pass, and the client for it (none when the read
    /// fails or the account is gone).
    private func readAfresh(_ id: Int64) async -> (AccountPass.Event, (Result<GitbayClient, any Error>, Secret?)?) {
        do {
            guard let account = try await store.account(id: id), let snapshot = try await store.desireSnapshot(ofAccount: id) else {
                return (.fresh(nil), nil)
            }
            let fresh = AccountPass.Fresh(
                account: account, snapshot: snapshot, device: try await store.device(), status: try await store.status(ofAccount: id),
                records: try await store.registrations(ofAccount: id))
            let token = try await tokens.token(of: account)
            return (.fresh(fresh), (Result { try makeClient(account, token: token) }, token))
        } catch {
            return (.failed(error), nil)
        }
    }
}
