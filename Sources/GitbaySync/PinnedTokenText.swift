import GitbayReconcile
import GitbayState
import GitbaySupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The warning `status`, `doctor` and runs give for a token that lapses with nothing renewing
/// it: one `login --ssh --token-name` minted, whose pinned name no run rotates
/// (`TokenRotation.pinnedLapseWarning`).
enum PinnedTokenText {
    /// The warning for `account`'s token, when it is due at `now`; nil otherwise.
    static func warning(_ account: AccountRecord, token: APITokenDetails, installMarker: String, now: Date) -> String? {
        guard account.state == .active, let from = TokenRotation.pinnedLapseWarning(token, installMarker: installMarker), now >= from,
            let name = token.name, let expiresAt = token.expiresAt
        else { return nil }
        let when = expiresAt > now ? "expires \(RelativeTime.said(expiresAt, now: now))" : "expired \(RelativeTime.said(expiresAt, now: now))"
        let given = account.sshDestination.flatMap { try? SSHDestination(parsing: $0) }
        let login = ShellWords.gitbaySync("login", account.instance, "--ssh") + (given.map { " " + ShellWords.quoted($0.description) } ?? "")
        return
            "the API token of \(account.name), \(name), \(when), and no run renews it: its name was given with --token-name, and a run rotates only the names it chose. Sign in again before then with `\(login)` (a token named for this install, which runs rotate)."
    }
}

extension CommandRunner {
    /// A run's warning on standard error for each account whose pinned token lapses soon.
    func warnOfPinnedTokens(_ store: StateStore) async {
        // Only a token with a name, an expiry and a lifetime can be warned of: most runs have none, and read no more.
        guard let details = try? await store.namedExpiringTokenDetails(), !details.isEmpty, let device = try? await store.device() else { return }
        let now = context.now()
        // The accounts are read only when a token is due for the warning.
        let due = details.values.contains { token in
            TokenRotation.pinnedLapseWarning(token, installMarker: device.installMarker).map { now >= $0 } ?? false
        }
        guard due, let accounts = try? await store.accounts() else { return }
        for account in accounts {
            guard let token = details[account.id],
                let warning = PinnedTokenText.warning(account, token: token, installMarker: device.installMarker, now: now)
            else { continue }
            context.console.err(journalErr.line(.warning, "warning: \(escaped: warning)"))
        }
    }
}
