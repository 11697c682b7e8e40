import GitbayReconcile
import GitbayState
import GitbaySupport

/// What a removal's result means for `remove-account`: what to say, the JSON `result`, the rows
/// left on the server, and the error that ends the command.
struct RemovalVerdict {
    var said: String?
    var word = "kept"
    var left: [Int] = []
    var failure: CommandFailure?
    /// What became of the API token, once the account is deleted.
    var token: TokenRevocation?
    /// The token a held revocation was for.
    var heldName: String?

    init(_ result: AccountRemoval.Result, account: AccountRecord) {
        let shown = TerminalText.escaped(account.name)
        let retry =
            "runs retry the removal (the timer's too, if installed; after a server failure they wait out its backoff, `gitbay-sync run --now` does not)"
        let stillValid = { (token: TokenRevocation) in RemovalText.stillValid(token, of: account).map { " " + $0 } ?? "" }
        switch result {
        case .removed(_, let wiped, let revocation):
            token = revocation
            (said, word) = (
                "Removed \(shown): this device is deregistered and \(RemovalText.tokenGone(revocation))\(Self.lingering(wiped)).\(stillValid(revocation))",
                "removed"
            )
        case .forced(_, let rows, let hold, let wiped, let revocation):
            token = revocation
            (said, word, left) = (
                "Removed \(shown) by force: \(RemovalText.tokenGone(revocation))\(Self.lingering(wiped)), although \(TerminalText.escaped(RemovalText.held(hold))).\(stillValid(revocation))",
                "forced", rows
            )
        case .signedInAgain:
            failure = CommandFailure(
                "\(account.name) was signed in again while its removal ran, and that sign-in wins: it is not removed, and stays signed in with the new API token. To sign out, run `\(ShellWords.gitbaySync("remove-account", account.name))` again.",
                exitCode: .busy)
        case .busy(_, let pid):
            failure = CommandFailure(
                "\(account.name) is marked `removing`, but another gitbay-sync (pid \(pid)) is reconciling it right now: that process finishes the removal (or, if it stops first, `gitbay-sync run` does). It is no longer counted as signed in.",
                exitCode: .busy)
        case .interrupted(_, let reason):
            failure = CommandFailure(
                "\(account.name) is not removed yet: \(reason). This device is deregistered; the account stays `removing` with its API token and is no longer counted as signed in. `gitbay-sync run` or `\(ShellWords.gitbaySync("remove-account", account.name))` retries the removal (so does the timer, if installed).",
                exitCode: .unavailable)
        case .kept(let outcome, _) where outcome.condition == .authFailed:
            failure = CommandFailure(
                "\(account.name) is not removed yet: \(SkipReasonText.refusedRemoval(account)). It stays `removing` with its API token and is no longer counted as signed in.",
                exitCode: .denied)
        case .kept(_, let hold):
            failure = Self.held(hold, account: account, retry: retry)
            if case .revocationFailed(let name, _) = hold { heldName = name }
            if case .tokenStillValid(let name, _) = hold { heldName = name }
        }
    }

    /// The error of a removal kept as `removing` for `hold`.
    private static func held(_ hold: RemovalHold, account: AccountRecord, retry: String) -> CommandFailure {
        let why = CommandRunner.sentence(FailureText.said(hold.failure))
        switch hold {
        case .deregistrationFailed:
            return CommandFailure(
                "\(account.name) is not removed yet: \(why). It stays `removing` with its token and is no longer counted as signed in; \(retry), or use --force to delete it now.",
                exitCode: .unavailable)
        case .stepFailed:
            return CommandFailure(
                "\(account.name) is not removed yet: this device is deregistered, but \(why). The account stays `removing` with its API token and is no longer counted as signed in. Fix the hook, then \(retry); or use --force to delete the token now.",
                exitCode: .unavailable)
        case .revocationFailed(let name, _):
            return CommandFailure(
                "\(account.name) is not removed yet: \(RemovalText.held(hold)). It stays `removing` with its API token and is no longer counted as signed in; \(retry), or use --force to delete it here now (it then stays valid on the server until it is revoked by hand: \(RemovalText.sshCommand(account, ["token", "revoke", name]))).",
                exitCode: .unavailable)
        case .tokenStillValid:
            return CommandFailure(
                "\(account.name) is not removed yet: \(RemovalText.held(hold)). It stays `removing` with its API token and is no longer counted as signed in: find the token's name with `\(RemovalText.sshCommand(account, ["token", "list"]))` and revoke it with `\(RemovalText.sshCommand(account, ["token", "revoke", "<name>"]))`, then run `\(ShellWords.gitbaySync("remove-account", account.name))` again; or use --force to delete it here now (it then stays valid on the server until it is revoked by hand).",
                exitCode: .unavailable)
        }
    }

    /// What to add when the deleted token's bytes are still in the files.
    static func lingering(_ wiped: Bool) -> String {
        wiped ? "" : " (\(CommandRunner.tokenBytesLinger))"
    }
}
