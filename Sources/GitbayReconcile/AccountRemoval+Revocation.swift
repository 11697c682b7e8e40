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

    /// Revokes the account's named tokens with its own token: this install's stale ones first,
    /// then the current one, the last request ever sent with it. A name the server does not
    /// know (404), or a token it no longer takes (401), is revoked already. The requests are
    /// counted in `outcome`.
    func revoke(_ stored: StoredAPIToken, of account: AccountRecord, outcome: inout AccountOutcome) async
        -> Swift.Result<
            TokenRevocation, RevocationFailure
        >
    {
        guard let name = stored.details.name else { return .success(.unnamed) }
        let client = GitbayClient(
            instance: account.instance, apiToken: stored.token, accountName: account.name, configuration: reconciler.options.client,
            logger: reconciler.logger)
        var result = Swift.Result<TokenRevocation, RevocationFailure>.success(.revoked(name: name))
        names: for revoked in stored.staleNames.filter({ $0 != name }) + [name] {
            do {
                try await client.revokeToken(named: revoked)
                outcome.writes += 1
            } catch  where error.kind == .notFound {
                outcome.writes += 1
            } catch  where error.kind == .authFailed {
                // The token no longer works: nothing more can be sent with it, and it is of no use to anyone.
                break names
            } catch {
                reconciler.logger.info("removal.revoke-failed", ["token.name": revoked, "error": "\(error)"])
                result = .failure(RevocationFailure(name: revoked, failure: .server(error)))
                break names
            }
        }
        outcome.requests += await client.requestCount
        return result
    }
}
