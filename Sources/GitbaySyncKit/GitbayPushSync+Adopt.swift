extension GitbayPushSync {
    /// Makes the engine's accounts the app's own, in one call at launch: each account of
    /// `accounts` the engine does not have (or is signing out) is signed in with the app's
    /// token, `verifiedAs` its user (the app vouches for it: no check is sent); each account
    /// the engine has and `accounts` does not is signed out; the rest are left as they are.
    /// Accounts are matched by name (`GitbayAccount.name`).
    ///
    /// A sign-out is the engine's removal, as `signOut` makes it: this device is deregistered
    /// with the account's own token, the removal step runs, and only then is the token deleted.
    /// So an app that keeps its tokens (`tokenSource`) deletes a dropped account's token in its
    /// removal step, not before. A removal that cannot finish now is kept, with its token, and
    /// the next `reconcile()` (or `adopt`) finishes it.
    ///
    /// Sign-outs come first, so that an account the app signed in instead, on the same server,
    /// takes the device token over with no extra write. A sign-in the engine refuses is
    /// reported in `refused` and the others go on; a suspension, a cancellation or a database
    /// failure throws.
    @discardableResult
    public func adopt(_ accounts: [GitbayAppAccount]) async throws -> GitbayAdoption {
        let known = try await self.accounts()
        let wanted = Set(accounts.compactMap(\.name))
        var signedOut: [GitbaySignOut] = []
        for account in known where !wanted.contains(account.name) {
            try Task.checkCancellation()
            signedOut.append(try await signOut(account))
        }
        let held = Dictionary(known.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        var kept: [GitbayAccount] = []
        var toSignIn: [GitbayAppAccount] = []
        var seen: Set<String> = []
        for account in accounts {
            // One the engine cannot name is refused by its sign-in, as a bad instance.
            guard let name = account.name else {
                toSignIn.append(account)
                continue
            }
            guard seen.insert(name).inserted else { continue }
            if let mine = held[name], mine.state != .removing { kept.append(mine) } else { toSignIn.append(account) }
        }
        var signedIn: [GitbaySignIn] = []
        var refused: [GitbayAdoption.Refused] = []
        for account in toSignIn {
            try Task.checkCancellation()
            do {
                signedIn.append(try await signIn(instance: account.instance, apiToken: account.apiToken, verifiedAs: account.username))
            } catch let error as GitbaySignInError {
                refused.append(GitbayAdoption.Refused(account: account, error: error))
            }
        }
        return GitbayAdoption(signedIn: signedIn, signedOut: signedOut, kept: kept, refused: refused)
    }
}
