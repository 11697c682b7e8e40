import GitbayAPI
import GitbayState
import GitbaySupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension AccountRemoval {
    /// Revokes the account's tokens with its own token, as `RevocationMachine` decides, and
    /// counts the requests in `outcome`. A stop (the run's `stopNow`) cancels the requests in
    /// flight: the revocation then fails with the cancellation (`AccountFailure.isStop`), and
    /// whether the server revoked is not known.
    func revoke(_ stored: StoredAPIToken, of account: AccountRecord, outcome: inout AccountOutcome) async
        -> Swift.Result<TokenRevocation, RevocationMachine.Failure>
    {
        let client = GitbayClient(
            instance: account.instance, apiToken: stored.token, accountName: account.name, configuration: reconciler.options.client,
            logger: reconciler.logger)
        let machine = RevocationMachine(current: stored.details.name, staleNames: stored.staleNames)
        let (result, writes) = await cancelledAtStop { await self.carryOut(machine, with: client) }
        outcome.writes += writes
        outcome.requests += client.requestCount
        return result
    }

    /// What `body` returns, with its task cancelled (and so the requests it awaits) when the
    /// run's `stopNow` returns first.
    private func cancelledAtStop<Value: Sendable>(_ body: @escaping @Sendable () async -> Value) async -> Value {
        guard let stopNow = reconciler.options.stopNow else { return await body() }
        let work = Task { await body() }
        let watcher = Task {
            await stopNow()
            guard !Task.isCancelled else { return }
            work.cancel()
        }
        defer { watcher.cancel() }
        return await withTaskCancellationHandler {
            await work.value
        } onCancel: {
            work.cancel()
        }
    }

    /// Runs `machine` to its end, sending its requests with `client`; its result and the
    /// server's writes.
    private func carryOut(_ machine: RevocationMachine, with client: GitbayClient) async
        -> (Swift.Result<TokenRevocation, RevocationMachine.Failure>, Int)
    {
        var machine = machine
        var effect = machine.start()
        while true {
            switch effect {
            case .revoke(let name):
                let answer = await client.revokeAnswer(named: name)
                if case .failed(let error) = answer {
                    reconciler.logger.info("removal.revoke-failed", ["token.name": name, "error": "\(error)"])
                }
                effect = machine.revokeAnswered(answer)
            case .checkToken(let name):
                effect = machine.tokenChecked(await check(name, with: client))
            case .finish(let result):
                return (result, machine.writes)
            }
        }
    }

    private func check(_ name: String, with client: GitbayClient) async -> RevocationMachine.CheckAnswer {
        do {
            _ = try await client.whoami()
            reconciler.logger.info("removal.token-still-valid", ["token.name": name])
            return .accepted
        } catch  where error.kind == .authFailed {
            return .refused
        } catch {
            reconciler.logger.info("removal.revoke-unchecked", ["token.name": name, "error": "\(error)"])
            return .failed(error)
        }
    }
}
