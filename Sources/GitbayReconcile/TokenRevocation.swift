import GitbayKeyring

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What became of an account's API tokens on its server when the account was removed: the
/// one this device held, and the earlier ones this install minted and recorded.
package struct TokenRevocation: Sendable, Equatable {
    /// What became of the token this device held.
    package enum Current: Sendable, Equatable {
        /// `token revoke <name>` answered and the token itself is refused since: checked.
        case revoked(name: String)
        /// The server refused the token before anything was revoked (it expired, or was
        /// revoked elsewhere): it works nowhere. `name`, when known.
        case refused(name: String?)
        /// The token has a name but was not revoked (the removal was forced past a failure):
        /// it stays valid on the server until it is revoked by hand or expires.
        case notRevoked(name: String)
        /// `token revoke <name>` answered, yet the token still works: the name was not its
        /// own (`nameKnown`: another token had it, and is revoked). It stays valid.
        case stillValid(name: String, nameKnown: Bool)
        /// No name is known for it (a token pasted without `--token-name`): it was deleted
        /// here only, and stays valid on the server.
        case unnamed
        /// The keyring that holds it did not answer, so it was neither read nor revoked: it
        /// stays valid on the server. `name`, when known.
        case unread(name: String?)
    }

    package var current: Current
    /// Names of earlier tokens this install minted for the account that were not revoked
    /// (nothing could be sent, or the current token was refused first): each may stay valid
    /// until it is revoked by hand or expires.
    package var staleLeft: [String]
    /// The keyring items of the account's tokens that could not be deleted (the keyring did
    /// not answer): the tokens are still in them, though the account is gone.
    package var keyringLeft: KeyringItemsLeft?

    package init(_ current: Current, staleLeft: [String] = [], keyringLeft: KeyringItemsLeft? = nil) {
        self.current = current
        self.staleLeft = staleLeft
        self.keyringLeft = keyringLeft
    }

    /// The current token revoked, and no earlier one left.
    package static func revoked(name: String) -> Self { Self(.revoked(name: name)) }
    /// The current token not revoked, and no earlier one left.
    package static func notRevoked(name: String) -> Self { Self(.notRevoked(name: name)) }
    /// A token of no known name, and no earlier one left.
    package static let unnamed = Self(.unnamed)

    /// The current token's name on the server, when known.
    package var name: String? {
        switch current {
        case .revoked(let name), .notRevoked(let name), .stillValid(let name, _): name
        case .refused(let name), .unread(let name): name
        case .unnamed: nil
        }
    }

    /// True when the token this device held no longer works on the server.
    package var isRevoked: Bool {
        switch current {
        case .revoked, .refused: true
        case .notRevoked, .stillValid, .unnamed, .unread: false
        }
    }
}

/// Keyring items a removal could not delete: their `account` attributes, and why.
package struct KeyringItemsLeft: Sendable, Equatable {
    package var items: [String]
    package var reason: KeyringUnavailable

    package init(items: [String], reason: KeyringUnavailable) {
        self.items = items
        self.reason = reason
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
    /// The device is deregistered and the step passed, and `token revoke <name>` answered,
    /// but the token this device held still works: `name` was not its own.
    case tokenStillValid(name: String, nameKnown: Bool)

    /// What the failure itself said.
    package var detail: String { failure.description }

    /// The hold as the account's failure.
    package var failure: AccountFailure {
        switch self {
        case .stepFailed(let said): .local(.removalStep(said))
        case .deregistrationFailed(let failure), .revocationFailed(_, let failure): failure
        case .tokenStillValid(let name, let nameKnown): .local(.tokenStillAccepted(name: name, nameKnown: nameKnown))
        }
    }

    /// Whether a stop cut the token's revocation short: its requests were cancelled, so whether
    /// the server revoked it is not known.
    package var revocationInterrupted: Bool {
        if case .revocationFailed(_, let failure) = self { failure.isStop } else { false }
    }

    /// Whether this device's rows for the account are gone from the server.
    package var deregistered: Bool {
        if case .deregistrationFailed = self { false } else { true }
    }
}
