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

extension GitbayClient {
    /// `token create --name <name> --scope full --ttl <ttl>`: a full-scope token the server
    /// shows this once, kept as a `Secret` and redacted from anything this client reports.
    package func createToken(named name: String, ttl: String) async throws(GitbayError) -> MintedToken {
        let words = ["token", "create"]
        let response = try await answer(
            to: .write(argv: words + ["--name", name, "--scope", "full", "--ttl", ttl], stdin: nil), command: words)
        guard case .success(let minted) = MintedToken.parse(response.body) else {
            throw GitbayError(kind: .malformed, account: accountName, command: words, httpStatus: response.status)
        }
        noteSecret(minted.token)
        return minted
    }

    /// `token list` over `GET /api/v1/read`: the account's tokens, by name.
    package func listTokens() async throws(GitbayError) -> [ServerToken] {
        let words = ["token", "list"]
        let response = try await answer(to: .read(argv: words, ifNoneMatch: nil), command: words)
        return try decode([ServerToken].self, from: response, command: words) ?? []
    }
}
