import GitbayAPI
import GitbayState
import GitbaySupport

extension GitbayClient {
    /// The short-lived client of a signed-in account: its own token, its own instance.
    ///
    /// An account without a stored API token (lost from the database) fails like a refused
    /// token: it needs a new sign-in. A token in a keyring that cannot be read throws the
    /// keyring's reason.
    package static func forAccount(
        _ account: AccountRecord, in tokens: APITokens, configuration: ClientConfiguration, logger: Logger
    ) async throws -> GitbayClient {
        try forAccount(account, token: try await tokens.token(of: account), configuration: configuration, logger: logger)
    }

    /// The same, with the account's API token as already read (nil when none is stored).
    ///
    /// An account whose stored user name is not one gitbay gives (stored by an earlier version
    /// from a server that is not gitbay) gets no client, unless it is being removed: removing
    /// it is the fix.
    package static func forAccount(
        _ account: AccountRecord, token: Secret?, configuration: ClientConfiguration, logger: Logger
    ) throws -> GitbayClient {
        try forAccount(account, token: token, configuration: SharedClientConfiguration(configuration), logger: logger)
    }

    /// The same, with a configuration the clients of a run share.
    static func forAccount(
        _ account: AccountRecord, token: Secret?, configuration: SharedClientConfiguration, logger: Logger
    ) throws -> GitbayClient {
        guard !account.hasUnusableName else { throw LocalFailure.unusableName }
        guard let token else {
            throw GitbayError(
                kind: .authFailed, account: account.name, command: [],
                serverMessage: "no API token is stored for it"
            )
        }
        return GitbayClient(
            instance: account.instance, apiToken: token, accountName: account.name, configuration: configuration, logger: logger
        )
    }
}

extension RevocationMachine.RevokeAnswer {
    /// How `token revoke <name>` answered, as the revocation and renewal machines take it.
    init(_ result: Result<Void, GitbayError>) {
        switch result {
        case .success: self = .revoked
        case .failure(let error) where error.kind == .notFound: self = .unknownName
        case .failure(let error) where error.kind == .authFailed: self = .refused(error)
        case .failure(let error): self = .failed(error)
        }
    }
}
