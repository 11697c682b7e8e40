import GitbaySupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A token `token create` minted: the name and scope the server gave it, and the token itself,
/// which the server shows this once.
package struct MintedToken: Sendable, Equatable {
    package let name: String
    package let scope: String
    package let token: Secret

    /// Why an answer to `token create --json` holds no token.
    package enum Failure: Error, Sendable, Equatable {
        /// Not a gitbay envelope: empty, not JSON, or JSON without `protocol_version`.
        case notAnEnvelope
        /// The answer speaks another major protocol version.
        case protocolVersion(Int)
        /// The server refused the command: its `exit_code` and its message, token-like words
        /// redacted.
        case refused(exitCode: Int?, message: String)
        /// A successful answer without a token in its `data`.
        case noToken
    }

    private struct Payload: Decodable {
        let name: String?
        let scope: String?
        let token: String?
    }

    /// The token in `answer`, the envelope that `token create --json` prints on standard
    /// output over gitbay's SSH access. Unknown fields are ignored, as everywhere.
    package static func parse(_ answer: [UInt8]) -> Result<MintedToken, Failure> {
        let data = Data(answer)
        guard let envelope = try? JSONDecoder().decode(ResponseEnvelope.self, from: data) else { return .failure(.notAnEnvelope) }
        guard envelope.protocolVersion == 1 else { return .failure(.protocolVersion(envelope.protocolVersion)) }
        if envelope.error != nil || (envelope.exitCode ?? 0) != 0 {
            let message = GitbayError.redactingTokens(in: envelope.error ?? "")
            return .failure(.refused(exitCode: envelope.exitCode, message: message))
        }
        guard let payload = try? JSONDecoder().decode(DataEnvelope<Payload>.self, from: data).data, let token = payload.token,
            !token.isEmpty
        else { return .failure(.noToken) }
        return .success(MintedToken(name: payload.name ?? "", scope: payload.scope ?? "", token: Secret(token)))
    }
}
