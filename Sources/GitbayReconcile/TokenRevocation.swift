#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What became of an account's API token on its server when the account was removed.
package enum TokenRevocation: Sendable, Equatable {
    /// `token revoke <name>` went through, or the server no longer knew the name (or the
    /// token): it no longer works anywhere.
    case revoked(name: String)
    /// The token has a name but was not revoked (the removal was forced past a failure): it
    /// stays valid on the server until it is revoked by hand or expires.
    case notRevoked(name: String)
    /// No name is known for it (a token pasted without `--token-name`): it was deleted here
    /// only, and stays valid on the server.
    case unnamed

    /// The token's name on the server, when known.
    package var name: String? {
        switch self {
        case .revoked(let name), .notRevoked(let name): name
        case .unnamed: nil
        }
    }

    /// True when the token no longer works on the server.
    package var isRevoked: Bool {
        if case .revoked = self { true } else { false }
    }
}

/// Why a removal did not complete, each with the failure as a value: the words for it
/// belong to the caller.
package enum RemovalHold: Sendable, Equatable {
    /// This device's rows could not be removed (the server's or the connection's failure, or
    /// the one an earlier run recorded while the account waits it out).
    case deregistrationFailed(AccountFailure)
    /// The device is deregistered, but the pre-removal step failed, as it said.
    case stepFailed(String)
    /// The device is deregistered and the step passed, but the token named `name` could not
    /// be revoked on the server (its failure), or read from the keyring to revoke it.
    case revocationFailed(name: String, failure: AccountFailure)

    /// What the failure itself said.
    package var detail: String { failure.description }

    /// The hold as the account's failure.
    package var failure: AccountFailure {
        switch self {
        case .stepFailed(let said): .local(.removalStep(said))
        case .deregistrationFailed(let failure), .revocationFailed(_, let failure): failure
        }
    }

    /// Whether this device's rows for the account are gone from the server.
    package var deregistered: Bool {
        if case .deregistrationFailed = self { false } else { true }
    }
}
