import GitbayAPI

/// What failed for an account, as a value: a caller says it in its own words (the command
/// line adds the step that fixes it). `description` is the core's plain account of it, which
/// the account's status records as its last error.
package indirect enum AccountFailure: Sendable, Equatable, CustomStringConvertible {
    /// The server refused or failed a request, or the connection to it did.
    case server(GitbayError)
    /// What failed when an earlier run last tried the account, as that run recorded it.
    case recorded(String)
    /// Something on this device: the state database, the OS keyring, the pre-removal step,
    /// or a stop on purpose.
    case local(String)

    /// `error` as a failure: the server's when it is one, else this device's.
    package init(_ error: any Error) {
        self = if let error = error as? GitbayError { .server(error) } else { .local(String(describing: error)) }
    }

    /// The server's failure, when it was one.
    package var server: GitbayError? {
        if case .server(let error) = self { error } else { nil }
    }

    package var description: String {
        switch self {
        case .server(let error): error.description
        case .recorded(let text), .local(let text): text
        }
    }
}
