/// Where an account's API token lives.
package enum TokenPlace: String, Sendable, Equatable {
    /// The OS keyring holds it (service `gitbay-sync`, account the account's name, or the
    /// item a rotation wrote, `api_tokens.keyring_item`); the database keeps only that reference.
    case keyring
    /// The database holds it: asked for at sign-in, or no keyring answered then.
    case database
    /// The database holds it, stored by an earlier version: a run moves it into the keyring
    /// once one answers.
    case awaitingKeyring = "awaiting-keyring"

    /// The `api_tokens.store` value of a row.
    init(column: String?) {
        switch column {
        case "keyring": self = .keyring
        case "database": self = .database
        default: self = .awaitingKeyring
        }
    }
}
