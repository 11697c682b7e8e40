import GitbaySupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One row of `token list`: never the token itself.
package struct ServerToken: Sendable, Equatable, Decodable {
    package let name: String
    package let scope: String?
    package let expiresAt: String?

    package init(name: String, scope: String? = nil, expiresAt: String? = nil) {
        self.name = name
        self.scope = scope
        self.expiresAt = expiresAt
    }

    private enum CodingKeys: String, CodingKey {
        case name, scope
        case expiresAt = "expires_at"
    }
}

/// The token commands, each started with a completion (a run's renewals and removals are
/// carried out so, with no task waiting on their requests) or awaited.
extension GitbayClient {
    /// `token revoke <name>`: the token of that name stops working, this client's own included
    /// (the request that revokes it still succeeds). Since v1.30.0 a full-scope token may run it.
    package func revokeToken(named name: String) async throws(GitbayError) {
        try await awaiting { startRevokingToken(named: name, completion: $0) }
    }

    /// `token create --name <name> --scope full --ttl <ttl>`, started: `completion` gets a
    /// full-scope token the server shows this once, kept as a `Secret` and redacted from
    /// anything this client reports.
    package func startCreatingToken(
        named name: String, ttl: String, completion: @escaping @Sendable (Result<MintedToken, GitbayError>) -> Void
    ) -> TransportTransfer {
        let words = ["token", "create"]
        let call = Call.write(argv: words + ["--name", name, "--scope", "full", "--ttl", ttl], stdin: nil)
        return startAnswering(call, command: words) { [self] answer in
            completion(
                Result { () throws(GitbayError) in
                    let response = try answer.get()
                    guard case .success(let minted) = MintedToken.parse(response.body) else {
                        throw GitbayError(kind: .malformed, account: accountName, command: words, httpStatus: response.status)
                    }
                    noteSecret(minted.token)
                    return minted
                })
        }
    }

    /// `token list` over `GET /api/v1/read`, started: `completion` gets the account's tokens,
    /// by name.
    package func startListingTokens(completion: @escaping @Sendable (Result<[ServerToken], GitbayError>) -> Void) -> TransportTransfer {
        let words = ["token", "list"]
        return startAnswering(.read(argv: words, ifNoneMatch: nil), command: words) { [self] answer in
            completion(Result { () throws(GitbayError) in try decode([ServerToken].self, from: answer.get(), command: words) ?? [] })
        }
    }

    /// `revokeToken`, started: `completion` gets its answer.
    package func startRevokingToken(named name: String, completion: @escaping @Sendable (Result<Void, GitbayError>) -> Void) -> TransportTransfer {
        let words = ["token", "revoke"]
        return startAnswering(.write(argv: words + [name], stdin: nil), command: words) { answer in
            completion(answer.map { _ in () })
        }
    }

    /// `whoami`, started: `completion` gets its answer.
    package func startWhoami(completion: @escaping @Sendable (Result<WhoAmI, GitbayError>) -> Void) -> TransportTransfer {
        let words = ["whoami"]
        return startAnswering(.read(argv: words, ifNoneMatch: nil), command: words) { [self] answer in
            completion(
                Result { () throws(GitbayError) in
                    let response = try answer.get()
                    guard let whoAmI = try decode(WhoAmI.self, from: response, command: words) else {
                        throw GitbayError(kind: .malformed, account: accountName, command: words, httpStatus: response.status)
                    }
                    return whoAmI
                })
        }
    }
}
