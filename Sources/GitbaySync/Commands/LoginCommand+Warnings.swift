import GitbayReconcile
import GitbayState
import GitbaySupport

/// What `login` warns of, beside the sign-in: a token that replaces a signed-in account's, an
/// account another one of its instance shadows (said in full here, once: `run`, `accounts`
/// and `status` then say it in one line), and a pasted token with no name.
struct LoginWarnings: Equatable {
    /// The account was signed in already: the new token replaces its old one.
    var replacedToken = false
    /// The full paragraph about the account being shadowed, if it is.
    var shadowed: String?
    /// The fix for a pasted token with no `--token-name`, if it has none.
    var unnamed: String?

    /// The warnings for `account`, signed in as `before` shows the accounts before it
    /// (`outcomes`: its instance's, when a device token is set).
    init(account: AccountRecord, before: [AccountRecord], outcomes: [SaidOutcome], tokenName: String?) {
        replacedToken = before.contains { $0.name == account.name }
        let name = TerminalText.escaped(account.name)
        if let holder = outcomes.first(where: { $0.accountID == account.id })?.shadowedBy {
            shadowed = OutcomeText.shadowedInFull(account.name, holder: holder, instance: account.instance.description)
        } else if outcomes.isEmpty, !replacedToken {
            let others = before.filter { $0.instance == account.instance && $0.state == .active }.map { TerminalText.escaped($0.name) }
            if !others.isEmpty {
                shadowed =
                    "\(others.joined(separator: ", ")) \(others.count == 1 ? "is" : "are") signed in on \(account.instance) already. A gitbay server keeps one row per device token, so one account of an instance holds it at a time (the one `gitbay-sync prefer` chose, else the earliest signed in): \(name) is shadowed, and this device gets no pushes for it. `\(ShellWords.gitbaySync("prefer", name))` moves the token to it."
            }
        }
        if tokenName == nil {
            unnamed =
                "This API token has no name here, so signing out cannot revoke it. Sign in again with its name, `\(ShellWords.gitbaySync("login", account.instance)) --token-name NAME` (`\(SSHDestination.stored(nil, instance: account.instance).command(["token", "list"]))` lists the names), or let gitbay-sync mint its own with `\(ShellWords.gitbaySync("login", account.instance, "--ssh"))`."
        }
    }

    /// The text lines, after the sign-in's own.
    var lines: [String] {
        (replacedToken ? ["It was signed in already: this API token replaces the one it had, which is not revoked."] : [])
            + [shadowed, unnamed].compactMap { $0.map { "Warning: \($0)" } }
    }
}
