import GitbayAPI
import GitbayState
import GitbaySupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension AccountRemoval {
    /// A revocation that did not go through: the name it was for, and what failed.
    struct RevocationFailure: Error, Sendable, Equatable {
        let name: String
        let failure: AccountFailure
    }

    /// Revokes the account's tokens with its own token: the stale ones this install minted
    /// first (whether or not the current one has a name), then the current one, the last
    /// revocation sent with it; then checks that the current token is refused before calling it
    /// revoked (`whoami` with it must answer 401). A stale name the server does not know (404)
    /// is revoked already. Once the server refuses the token, nothing more can be sent with it:
    /// the stale names not yet revoked are left, and said. The requests are counted in `outcome`.
    /// A stop (the run's `stopNow`) cancels the requests in flight: the revocation then fails
    /// with the cancellation (`AccountFailure.isStop`), and whether the server revoked is not known.
    func revoke(_ stored: StoredAPIToken, of account: AccountRecord, outcome: inout AccountOutcome) async
        -> Swift.Result<TokenRevocation, RevocationFailure>
    {
        let client = GitbayClient(
            instance: account.instance, apiToken: stored.token, accountName: account.name, configuration: reconciler.options.client,
            logger: reconciler.logger)
        let before = outcome
        let (result, after) = await cancelledAtStop {
            var outcome = before
            let result = await self.revoke(stored, with: client, outcome: &outcome)
            return (result, outcome)
        }
        outcome = after
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

    private func revoke(_ stored: StoredAPIToken, with client: GitbayClient, outcome: inout AccountOutcome) async
        -> Swift.Result<TokenRevocation, RevocationFailure>
    {
        let name = stored.details.name
        var stale = stored.staleNames.filter { $0 != name }
        while let next = stale.first {
            switch await send(next, with: client, outcome: &outcome) {
            case .refused: return .success(TokenRevocation(.refused(name: name), staleLeft: stale))
            case .failed(let error): return .failure(RevocationFailure(name: next, failure: .server(error)))
            case .answered: stale.removeFirst()
            }
        }
        guard let name else { return .success(.unnamed) }
        let nameKnown: Bool
        switch await send(name, with: client, outcome: &outcome) {
        case .refused: return .success(TokenRevocation(.refused(name: name)))
        case .failed(let error): return .failure(RevocationFailure(name: name, failure: .server(error)))
        case .answered(let known): nameKnown = known
        }
        // The answer names a token, not this one: only the token itself says it no longer works.
        do {
            _ = try await client.whoami()
            reconciler.logger.info("removal.token-still-valid", ["token.name": name])
            return .success(TokenRevocation(.stillValid(name: name, nameKnown: nameKnown)))
        } catch  where error.kind == .authFailed {
            return .success(.revoked(name: name))
        } catch {
            reconciler.logger.info("removal.revoke-unchecked", ["token.name": name, "error": "\(error)"])
            return .failure(RevocationFailure(name: name, failure: .server(error)))
        }
    }

    /// How the server answered `token revoke <name>`.
    private enum RevokeAnswer {
        /// Done (`nameKnown`), or no token of that name (404).
        case answered(nameKnown: Bool)
        /// The token the request was sent with is refused (401).
        case refused
        case failed(GitbayError)
    }

    private func send(_ name: String, with client: GitbayClient, outcome: inout AccountOutcome) async -> RevokeAnswer {
        do {
            try await client.revokeToken(named: name)
            outcome.writes += 1
            return .answered(nameKnown: true)
        } catch  where error.kind == .notFound {
            outcome.writes += 1
            return .answered(nameKnown: false)
        } catch  where error.kind == .authFailed {
            return .refused
        } catch {
            reconciler.logger.info("removal.revoke-failed", ["token.name": name, "error": "\(error)"])
            return .failed(error)
        }
    }
}
