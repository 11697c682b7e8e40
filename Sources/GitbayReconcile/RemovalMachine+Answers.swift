import GitbayKeyring

/// What a removal's machine is told, and what its end carries.
extension RemovalMachine {
    /// The status of an account held after its deregistration: why, and what failed.
    struct HeldStatus: Sendable, Equatable {
        let detail: String
        let error: String
    }

    /// How the pre-removal step failed.
    struct StepFailure: Sendable, Equatable {
        let detail: String
        /// A stop request cut it short.
        let interrupted: Bool
    }

    /// What reading the token found.
    enum TokenRead: Sendable, Equatable {
        /// The names of the token the account has (nil: it has none).
        case found(current: String?, staleNames: [String])
        case none
        /// The keyring holds the token and did not give it; the name and stale names recorded.
        case unavailable(KeyringUnavailable, name: String?, staleNames: [String])
    }
}

extension RemovalMachine.End {
    /// The account's outcome as the removal ends.
    var outcome: AccountOutcome {
        get {
            switch self {
            case .untouched(let outcome), .kept(let outcome, _, _), .interrupted(let outcome, _), .signedInAgain(let outcome),
                .delete(let outcome, _, _):
                outcome
            }
        }
        set {
            switch self {
            case .untouched: self = .untouched(newValue)
            case .kept(_, let reason, let saving): self = .kept(newValue, reason: reason, saving: saving)
            case .interrupted(_, let reason): self = .interrupted(newValue, reason: reason)
            case .signedInAgain: self = .signedInAgain(newValue)
            case .delete(_, let hold, let token): self = .delete(newValue, hold: hold, token: token)
            }
        }
    }
}
