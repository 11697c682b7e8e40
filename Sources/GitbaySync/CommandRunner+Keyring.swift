import GitbayKeyring
import GitbayReconcile
import GitbayState

extension CommandRunner {
    /// The OS keyring of this command's environment. Nothing prompts: a locked keyring is a
    /// reason to wait, which suits a run nobody watches.
    var keyring: any TokenKeyring { SystemKeyring.make(environment: context.environment) }

    /// The accounts' API tokens in `store` and this command's keyring.
    func tokens(_ store: StateStore) -> APITokens { APITokens(store: store, keyring: keyring) }
}
