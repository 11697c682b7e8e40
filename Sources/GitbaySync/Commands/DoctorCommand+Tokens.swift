import GitbayKeyring
import GitbayReconcile
import GitbayState
import GitbaySupport

extension CommandRunner {
    /// What no probe of a server tells about the accounts' tokens: a token whose pinned name no
    /// run renews, near its expiry (a warning with the sign-in that fixes it), and keyring items
    /// of this install that no account here refers to any more (a warning with the command
    /// that deletes each).
    func tokenChecks(_ store: StateStore) async -> [DoctorCheck] {
        guard let accounts = try? await store.accounts(), let device = try? await store.device() else { return [] }
        let details = (try? await store.apiTokenRecords()) ?? [:]
        let now = context.now()
        var checks: [DoctorCheck] = []
        for account in accounts {
            guard let token = details[account.id]?.details,
                let warning = PinnedTokenText.warning(account, token: token, installMarker: device.installMarker, now: now)
            else { continue }
            checks.append(.warn("account.token_expiry", account.name, warning, fix: FailureText.signInAgain(account)))
        }
        if let orphans = await orphanedKeyringItems(store, accounts: accounts, installMarker: device.installMarker), !orphans.isEmpty {
            let commands = orphans.map { "`\(KeyringText.deleteCommand(item: $0))`" }.joined(separator: ", ")
            checks.append(
                .warn(
                    "keyring.items", "keyring",
                    "\(orphans.count) keyring item\(orphans.count == 1 ? "" : "s") of this install that no account here refers to (an account signed out, or removed while the keyring was locked): \(orphans.joined(separator: ", ")); each holds a token that may still be valid on its server",
                    fix: "revoke each token on its server if it still works (`ssh git@HOST token list`), then delete the items: \(commands)"))
        }
        return checks
    }

    /// This install's keyring items (`user@host <install marker>`, and a rotation's
    /// `user@host <install marker> <name>`) that no account of `store` refers to, sorted; nil
    /// when the keyring does not answer (its own check says why).
    private func orphanedKeyringItems(_ store: StateStore, accounts: [AccountRecord], installMarker: String) async -> [String]? {
        guard !installMarker.isEmpty, let items = try? await keyring.readAll() else { return nil }
        var referred = Set<String>()
        for account in accounts { referred.formUnion((try? await store.allKeyringItems(ofAccount: account.id)) ?? []) }
        return items.keys.filter { item in
            let words = item.split(separator: " ")
            return words.count >= 2 && words[1] == installMarker && !referred.contains(item)
        }.sorted()
    }
}
