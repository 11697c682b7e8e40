import GitbayAPI
import GitbayKeyring
import GitbayState
import GitbaySupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The steps of a removal's machine carried out: the same for `remove-account`, which runs
/// them one after another, and for a run's `PassPool`, which runs them as the account's next
/// machine after its pass.
extension AccountRemoval {
    /// A removal under way: the account as read when its removal was decided, its machine,
    /// and the client of its token once read.
    struct Ongoing: Sendable {
        let account: AccountRecord
        var machine: RemovalMachine
        var client: GitbayClient?

        init(_ account: AccountRecord, after outcome: AccountOutcome, force: Bool, inRun: Bool) {
            self.account = account
            machine = RemovalMachine(after: outcome, force: force, inRun: inRun)
        }
    }

    /// Carries out one step of the removal other than a request or its end; what came of it,
    /// for its machine. Throws what the store throws: the removal is then held for this run.
    func carryOut(_ effect: RemovalMachine.Effect, of removal: inout Ongoing) async throws -> RemovalMachine.Answer {
        let (account, store) = (removal.account, reconciler.store)
        switch effect {
        case .check:
            let stillRemoving = try await isStillRemoving(account)
            let stepPassed = try await store.removalStepPassed(ofAccount: account.id, removalStartedAt: account.removalStartedAt)
            return .checked(stillRemoving: stillRemoving, stepPassed: stepPassed)
        case .runStep:
            return .stepRan(await runStep(for: account))
        case .readToken:
            let read: RemovalMachine.TokenRead
            switch await storedToken(of: account) {
            case .success(let stored?):
                removal.client = GitbayClient(
                    instance: account.instance, apiToken: stored.token, accountName: account.name, configuration: reconciler.options.client,
                    logger: reconciler.logger)
                read = .found(current: stored.details.name, staleNames: stored.staleNames)
            case .success(nil):
                read = .none
            case .failure(let unavailable):
                let name = (try? await store.apiTokenDetails(ofAccount: account.id))??.name
                let staleNames = (try? await store.apiTokenRecords()[account.id]?.staleNames) ?? []
                read = .unavailable(unavailable, name: name, staleNames: staleNames)
            }
            return .tokenRead(read, stillRemoving: try await isStillRemoving(account))
        case .revoke, .checkToken, .finish:
            preconditionFailure("\(effect) is not a step of the store")
        }
    }

    /// Starts the revocation's request `effect` asks for with the account's `client`;
    /// `answered` gets what came of it. Cancelling the transfer answers it as cancelled.
    func start(
        _ effect: RemovalMachine.Effect, with client: GitbayClient, answered: @escaping @Sendable (RemovalMachine.Answer) -> Void
    ) -> TransportTransfer {
        let logger = reconciler.logger
        switch effect {
        case .revoke(let name):
            return client.startRevokingToken(named: name) { result in
                let answer = RevocationMachine.RevokeAnswer(result)
                if case .failed(let error) = answer { logger.info("removal.revoke-failed", ["token.name": name, "error": "\(error)"]) }
                answered(.revoke(answer))
            }
        case .checkToken(let name):
            return client.startWhoami { result in answered(.check(Self.checked(result, name: name, logger: logger))) }
        default:
            preconditionFailure("\(effect) is not a request")
        }
    }

    /// The same, awaited: the task's cancellation cancels the request.
    func request(_ effect: RemovalMachine.Effect, with client: GitbayClient) async -> RemovalMachine.Answer {
        await GitbayClient.awaiting { start(effect, with: client, answered: $0) }
    }

    /// Carries out the removal's end; nil when a run's removal was left for a later run.
    func end(_ end: RemovalMachine.End, of removal: Ongoing) async throws -> Result? {
        let account = removal.account
        var end = end
        end.outcome.requests += removal.client?.requestCount ?? 0
        switch end {
        case .untouched:
            return nil
        case .kept(let outcome, let reason, let saving):
            if let saving { await saveHeldStatus(account, detail: saving.detail, error: saving.error) }
            return .kept(outcome, reason: reason)
        case .interrupted(let outcome, let reason):
            return .interrupted(outcome, reason: reason)
        case .signedInAgain(let outcome):
            return .signedInAgain(try await stillSignedIn(account, outcome))
        case .delete(let outcome, let hold, let token):
            return try await delete(account, outcome: outcome, hold: hold, token: token)
        }
    }

    /// Runs the pre-removal step; nil when it passed, else what it said and whether a stop
    /// request cut it short (the status then says so).
    private func runStep(for account: AccountRecord) async -> RemovalMachine.StepFailure? {
        do {
            try await step.run(for: account, shutdown: shutdown)
            try? await reconciler.store.markRemovalStepPassed(ofAccount: account.id, removalStartedAt: account.removalStartedAt)
            return nil
        } catch {
            let interrupted = error is any PreRemovalInterruption
            // The deregistration stands: say so, so that no one reads the account as still registered.
            await saveHeldStatus(account, detail: interrupted ? Self.interruptedDetail : Self.hookFailedDetail, error: String(describing: error))
            return RemovalMachine.StepFailure(detail: String(describing: error), interrupted: interrupted)
        }
    }
}
