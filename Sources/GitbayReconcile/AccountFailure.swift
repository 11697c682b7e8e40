import GitbayAPI
import GitbayKeyring
import GitbayState

/// What failed for an account, as a value: a caller says it in its own words (the command
/// line adds the step that fixes it). `description` is the core's plain account of it, which
/// the account's status records as its last error.
package indirect enum AccountFailure: Sendable, Equatable, CustomStringConvertible {
    /// The server refused or failed a request, or the connection to it did.
    case server(GitbayError)
    /// What failed when an earlier run last tried the account, as that run recorded it.
    case recorded(String)
    /// Something on this device.
    case local(LocalFailure)

    /// `error` as a failure: the server's when it is one, else this device's.
    package init(_ error: any Error) {
        self = if let error = error as? GitbayError { .server(error) } else { .local(LocalFailure(error)) }
    }

    /// True for a stop on purpose: a cancelled task or request, not the account's failure.
    package var isStop: Bool {
        switch self {
        case .local(.stopped): true
        case .server(let error): if case .transport(.cancelled) = error.kind { true } else { false }
        case .recorded, .local: false
        }
    }

    /// The server's failure, when it was one.
    package var server: GitbayError? {
        if case .server(let error) = self { error } else { nil }
    }

    package var description: String {
        switch self {
        case .server(let error): error.description
        case .recorded(let text): text
        case .local(let failure): failure.description
        }
    }
}

/// What failed on this device, as a value.
package enum LocalFailure: Error, Sendable, Equatable, CustomStringConvertible {
    /// The state database could not be used.
    case store(StoreError)
    /// The OS keyring that holds the account's token did not answer.
    case keyring(KeyringUnavailable)
    /// The pre-removal step failed, as it said (an app's own step words its errors).
    case removalStep(String)
    /// The pass was stopped on purpose: the process was asked to stop, or its task cancelled.
    case stopped
    /// The account was not reconciled: it was no longer there to read.
    case notReconciled
    /// `token revoke <name>` answered (done, or no token of that name), yet the token this
    /// device held still works: the name was not its own. `nameKnown`: the server had a token
    /// of that name (and revoked it).
    case tokenStillAccepted(name: String, nameKnown: Bool)
    /// The account's stored user name is not one gitbay gives (`UserName`): an earlier
    /// version stored it from a server that is not gitbay. Nothing is sent for the account
    /// until it is removed.
    case unusableName
    /// Any other failure, as it described itself.
    case other(String)

    /// `error` as one of these.
    package init(_ error: any Error) {
        self =
            switch error {
            case let store as StoreError: .store(store)
            case let keyring as KeyringUnavailable: .keyring(keyring)
            case is CancellationError: .stopped
            case let local as LocalFailure: local
            default: .other(String(describing: error))
            }
    }

    package var description: String {
        switch self {
        case .store(let error): error.description
        case .keyring(let reason): reason.description
        case .removalStep(let said): said
        case .stopped: "stopped before it finished"
        case .notReconciled: "not reconciled"
        case .tokenStillAccepted(let name, true):
            "the server revoked the token named \(name), but the token this device held still works: that name was another token's"
        case .tokenStillAccepted(let name, false):
            "the server knows no token named \(name), and the token this device held still works"
        case .unusableName:
            "its stored user name is not a gitbay user name (\(UserName.rule)): an earlier version stored it from a server that is not gitbay, so nothing is sent for the account; remove the account and sign in again"
        case .other(let text): text
        }
    }
}
