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
struct PassDriver: Sendable {
    let store: StateStore
    let options: Reconciler.Options
    let logger: Logger
    let sameServer: SameServerCheck

    /// The account's result.
    func run(_ pass: AccountPass, token: Secret?) async -> Reconciler.Reconciled {
        var pass = pass
        let account = pass.account
        let logger = logger.with(["account.name": account.name])
        var client = Result { try makeClient(account, token: token) }
        var spent = 0
        var witnesses: [SameServerCheck.Witness] = []
        // The accounts of other names listed around the last add.
        var around: [SameServerCheck.Witness] = []
        var holdsTurn = false
        var step = pass.begin()
        while true {
            if holdsTurn, !pass.isCompletingAnAdd {
                await sameServer.turns.end()
                holdsTurn = false
            }
            let event: AccountPass.Event
            switch step {
            case .finish(let result):
                let requests = spent + (await Self.requests(of: client)) + (await SameServerCheck.requests(of: witnesses))
                return finished(result, requests: requests, logger: logger)
            case .readAfresh:
                logger.info("account.superseded", ["account.name": account.name])
                let fresh: Result<GitbayClient, any Error>?
                (event, fresh) = await readAfresh(account.id)
                if let fresh {
                    spent += await Self.requests(of: client)
                    client = fresh
                }
            case .add:
                if !holdsTurn {
                    await sameServer.turns.begin()
                    holdsTurn = true
                }
                (event, around) = await add(pass, client: client)
                witnesses += around
            case .checkOtherNames(let id):
                if case .success(let client) = client {
                    await sameServer.check(account, client: client, added: id, witnesses: around)
                }
                event = .otherNamesChecked
            default:
                event = await carryOut(step, pass: pass, client: client, logger: logger)
            }
            step = pass.handle(event)
        }
    }

    /// The account's result, with every request its passes and their checks made.
    private func finished(_ result: Reconciler.Reconciled, requests: Int, logger: Logger) -> Reconciler.Reconciled {
        var result = result
        result.outcome.requests = requests
        if result.outcome.action == .failed, result.steady == nil {
            logger.warning("account.failed", ["account.name": result.outcome.account, "account.condition": result.outcome.condition.rawValue])
        }
        return result
    }

    private static func requests(of client: Result<GitbayClient, any Error>) async -> Int {
        await (try? client.get())?.requestCount ?? 0
    }

    /// The event a store or server step ends with.
    private func carryOut(_ step: AccountPass.Step, pass: AccountPass, client: Result<GitbayClient, any Error>, logger: Logger) async
        -> AccountPass.Event
    {
        let accountID = pass.account.id
        do {
            switch step {
            case .list(let tag):
                if case .failure(let error) = client { return .noClient(error) }
                switch try await client.get().listDevices(ifNoneMatch: tag) {
                case .list(let rows, let etag): return .listed(rows, etag: etag)
                case .notModified: return .notModified
                }
            case .takeLease(let records):
                return .lease(try await store.takeLease(ofAccount: accountID, holder: options.leaseHolder, ifRecords: records, now: options.now()))
            case .checkStillWanted(let snapshot):
                return .stillWanted(try await store.desireSnapshot(ofAccount: accountID) == snapshot)
            case .remove(let id, let reason):
                logger.info("registration.remove", ["account.name": pass.account.name, "device.id": String(id), "reason": reason.rawValue])
                _ = try await client.get().removeDevice(id: id)
                return .removed
            case .record(let record):
                try await store.recordRegistration(record)
                return .stored
            case .forget(let id, let reason):
                logger.info("registration.forget", ["account.name": pass.account.name, "device.id": String(id), "reason": reason.rawValue])
                try await store.forgetRegistration(accountID: accountID, deviceID: id)
                return .stored
            case .save(let status, let snapshot):
                return .saved(try await store.saveStatus(status, ofAccount: accountID, ifStill: snapshot))
            case .giveBackLease:
                try? await store.releaseLeases([accountID], holder: options.leaseHolder)
                return .leaseGivenBack
            case .add, .checkOtherNames, .readAfresh, .finish:
                preconditionFailure("\(step) is carried out by the loop")
            }
        } catch {
            return .failed(error)
        }
    }

    /// `device add` in the run's turn, and the accounts of other names listed just before it,
    /// for the check for another name of this server once its row is known (`SameServerCheck`).
    private func add(_ pass: AccountPass, client: Result<GitbayClient, any Error>) async -> (AccountPass.Event, [SameServerCheck.Witness]) {
        guard let token = pass.device.token, let current = pass.device.tokenIdentity, case .success(let client) = client else {
            preconditionFailure("a pass adds only with a device token and a client")
        }
        let around = await sameServer.witnesses(for: pass.account, token: current)
        let answer: DeviceAddResult
        do {
            answer = try await client.addDevice(token: token, label: pass.device.serverLabel)
        } catch {
            // The add may have gone through unanswered, and moved a witness's row if its
            // server is this one: its `registered` no longer holds until its own pass says so.
            await sameServer.forgetVerdicts(of: around)
            return (.failed(error), around)
        }
        // Any witness may have lost its row to an add answered without the id; with the id,
        // only one that listed it, which the check settles.
        if answer.id == nil { await sameServer.forgetVerdicts(of: around) }
        return (.added(id: answer.id), around)
    }

    /// The account's client for a pass; it fails like a refused token without a stored one.
    private func makeClient(_ account: AccountRecord, token: Secret?) throws -> GitbayClient {
        try GitbayClient.forAccount(account, token: token, configuration: options.client, logger: logger)
    }

    /// The account as read afresh for another pass, and the client for it (none when the read
    /// fails or the account is gone).
    private func readAfresh(_ id: Int64) async -> (AccountPass.Event, Result<GitbayClient, any Error>?) {
        do {
            guard let account = try await store.account(id: id), let snapshot = try await store.desireSnapshot(ofAccount: id) else {
                return (.fresh(nil), nil)
            }
            let fresh = AccountPass.Fresh(
                account: account, snapshot: snapshot, device: try await store.device(), status: try await store.status(ofAccount: id),
                records: try await store.registrations(ofAccount: id))
            let token = try await store.apiToken(ofAccount: id)
            return (.fresh(fresh), Result { try makeClient(account, token: token) })
        } catch {
            return (.failed(error), nil)
        }
    }
}
