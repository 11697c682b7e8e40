import GitbayReconcile

/// How a sign-out ended.
public enum GitbayRemoval: Sendable, Equatable {
    /// Deregistered, the removal step passed, the token dealt with as `token` says, the token
    /// and records deleted.
    case removed(token: GitbayTokenRevocation)
    /// Kept as `removing` with its token, for the reason given: a later `reconcile()` retries.
    case kept(GitbayRemovalHold)
    /// Deleted by force although the sign-out was held; these server rows of this device's
    /// were left behind, and the token is as `token` says.
    case removedByForce(rowsLeft: [Int], hold: GitbayRemovalHold, token: GitbayTokenRevocation)
    /// Left as `removing`: another process (`pid`, an agent on the same database) is
    /// reconciling the account and finishes it, or the next `reconcile()` does.
    case busy(pid: Int32)
    /// Kept as `removing` with its token: the work was stopped while the removal step ran.
    case interrupted
    /// Not removed: the account was signed in again meanwhile, and that later choice wins.
    case signedInAgain

    /// True when the account and its token are gone from this device.
    public var isRemoved: Bool {
        switch self {
        case .removed, .removedByForce: true
        case .kept, .busy, .interrupted, .signedInAgain: false
        }
    }

    init(_ result: AccountRemoval.Result) {
        switch result {
        case .removed(_, _, let token): self = .removed(token: GitbayTokenRevocation(token))
        case .kept(_, let hold): self = .kept(GitbayRemovalHold(hold))
        case .forced(_, let rows, let hold, _, let token):
            self = .removedByForce(rowsLeft: rows, hold: GitbayRemovalHold(hold), token: GitbayTokenRevocation(token))
        case .busy(_, let pid): self = .busy(pid: pid)
        case .interrupted: self = .interrupted
        case .signedInAgain: self = .signedInAgain
        }
    }
}

/// Why a sign-out did not complete.
public enum GitbayRemovalHold: Sendable, Equatable {
    /// This device's rows could not be removed.
    case deregistrationFailed(GitbayFailure)
    /// The device is deregistered, but the app's removal step threw (`message`: what it said).
    case removalStepFailed(message: String)
    /// The device is deregistered and the step passed, but the token named `name` could not be
    /// revoked on the server.
    case revocationFailed(name: String, failure: GitbayFailure)
    /// `token revoke <name>` answered, but the token this device held still works.
    case tokenStillValid(name: String, nameKnown: Bool)

    init(_ hold: RemovalHold) {
        switch hold {
        case .deregistrationFailed(let failure): self = .deregistrationFailed(GitbayFailure(failure))
        case .stepFailed(let said): self = .removalStepFailed(message: said)
        case .revocationFailed(let name, let failure): self = .revocationFailed(name: name, failure: GitbayFailure(failure))
        case .tokenStillValid(let name, let nameKnown): self = .tokenStillValid(name: name, nameKnown: nameKnown)
        }
    }
}

/// What became of an account's API tokens on its server when it was signed out.
public struct GitbayTokenRevocation: Sendable, Equatable {
    /// What became of the token this device held.
    public enum Current: Sendable, Equatable {
        /// Revoked, and checked refused since.
        case revoked(name: String)
        /// The server refused it before anything was revoked (expired, revoked elsewhere).
        case refused(name: String?)
        /// Not revoked (a forced sign-out): it stays valid until revoked by hand or expired.
        case notRevoked(name: String)
        /// `token revoke <name>` answered, yet it still works: the name was another token's.
        case stillValid(name: String, nameKnown: Bool)
        /// No name is known for it: deleted here only, it stays valid on the server.
        case unnamed
        /// The token store did not answer, so it was neither read nor revoked.
        case unread(name: String?)
    }

    public let current: Current
    /// Earlier tokens minted for the account that were not revoked.
    public let staleLeft: [String]
    /// Token store items that could not be deleted, when some could not.
    public let itemsLeft: [String]

    init(_ revocation: TokenRevocation) {
        current =
            switch revocation.current {
            case .revoked(let name): .revoked(name: name)
            case .refused(let name): .refused(name: name)
            case .notRevoked(let name): .notRevoked(name: name)
            case .stillValid(let name, let nameKnown): .stillValid(name: name, nameKnown: nameKnown)
            case .unnamed: .unnamed
            case .unread(let name): .unread(name: name)
            }
        staleLeft = revocation.staleLeft
        itemsLeft = revocation.keyringLeft?.items ?? []
    }
}

/// What a run did to an account's API token, when it did anything.
public struct GitbayTokenRenewal: Sendable, Equatable {
    /// When the token was rotated: the name of the one it replaced.
    public let predecessor: String?
    /// When the token was rotated: the successor's name, now the one in use.
    public let successor: String?
    /// The predecessor was revoked too (false: a later run revokes it).
    public let predecessorRevoked: Bool
    /// Stale tokens revoked (or found gone) on the server.
    public let revoked: [String]
    /// What failed; the next run tries again.
    public let failure: GitbayFailure?
    /// The token store did not take the successor: the token in use stays, and the next run
    /// tries again.
    public let tokenStoreFailure: GitbayTokenStoreFailure?

    init(_ renewal: TokenRenewal) {
        predecessor = renewal.predecessor
        successor = renewal.successor
        predecessorRevoked = renewal.predecessorRevoked
        revoked = renewal.revoked
        failure = renewal.failure.map(GitbayFailure.init)
        tokenStoreFailure = renewal.keyringUnavailable.map(GitbayTokenStoreFailure.init)
    }
}
