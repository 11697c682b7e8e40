/// Where an account's API token lives.
package enum TokenPlace: String, Sendable, Equatable {
    /// The OS keyring holds it (service `gitbay-sync`, account the account's name, or the
    /// item a rotation wrote, `api_tokens.keyring_item`); the database keeps only that reference.
    case keyring
    /// The database holds it, as `--token-store database` asked at sign-in.
    case database
    /// The database holds it until a keyring answers (no keyring answered at sign-in, or an
    /// earlier version stored it): a run moves it into the keyring once one does.
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
