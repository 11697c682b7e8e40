import GitbayReconcile
import GitbayState
import GitbaySupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The command line's words for how a removal left the account's API token and why a removal
/// was held: the core says so as values (`TokenRevocation`, `RemovalHold`), the agent says it
/// with the commands that end it.
enum RemovalText {
    /// `ssh <destination> <words>` for the account's SSH access, as the user would type it:
    /// the destination `login --ssh` was given, else `git@` and the instance's host.
    static func sshCommand(_ account: AccountRecord, _ words: [String]) -> String {
        SSHDestination.stored(account.sshDestination, instance: account.instance).command(words)
    }

    /// What the user must know of the tokens that were not revoked, with how to revoke them;
    /// nil when every one was.
    static func stillValid(_ token: TokenRevocation, of account: AccountRecord) -> String? {
        let said = [current(token.current, of: account), stale(token.staleLeft, of: account), keyring(token.keyringLeft)].compactMap { $0 }
        return said.isEmpty ? nil : said.joined(separator: " ")
    }

    /// What the user must know of the token this device held, when it may still work.
    private static func current(_ current: TokenRevocation.Current, of account: AccountRecord) -> String? {
        let find =
            "find its name with `\(sshCommand(account, ["token", "list"]))`, then revoke it with `\(sshCommand(account, ["token", "revoke", "<name>"]))`"
        switch current {
        case .revoked, .refused:
            return nil
        case .notRevoked(let name):
            return
                "The API token \(TerminalText.escaped(name)) is still valid on the server: revoke it with `\(sshCommand(account, ["token", "revoke", name]))`."
        case .stillValid(let name, let nameKnown):
            let what =
                nameKnown
                ? "the name \(TerminalText.escaped(name)) was revoked, but it was another token's"
                : "the server knows no token named \(TerminalText.escaped(name))"
            return "The API token this device held is still valid on the server (\(what)): \(find)."
        case .unnamed:
            return
                "The API token is still valid on the server (it was pasted without --token-name, so gitbay-sync does not know its name): \(find)."
        case .unread(let name?):
            return
                "The API token \(TerminalText.escaped(name)) was not revoked and is still valid on the server: revoke it with `\(sshCommand(account, ["token", "revoke", name]))`."
        case .unread(nil):
            return "The API token was not revoked and is still valid on the server: \(find)."
        }
    }

    /// What the user must know of keyring items a removal could not delete, with how to.
    private static func keyring(_ left: KeyringItemsLeft?) -> String? {
        guard let left else { return nil }
        let one = left.items.count == 1
        let commands = left.items.map { "`\(KeyringText.deleteCommand(item: $0))`" }.joined(separator: ", ")
        return
            "The keyring still holds the token (\(TerminalText.escaped(left.reason.description))): unlock it, then delete the item\(one ? "" : "s") with \(commands)."
    }

    /// What the user must know of the earlier tokens this device minted and could not revoke.
    private static func stale(_ names: [String], of account: AccountRecord) -> String? {
        guard !names.isEmpty else { return nil }
        let listed = names.map(TerminalText.escaped).joined(separator: ", ")
        let commands = names.map { "`\(sshCommand(account, ["token", "revoke", $0]))`" }.joined(separator: ", ")
        let one = names.count == 1
        return
            "\(one ? "An earlier API token" : "Earlier API tokens") this device minted, \(listed), may still be valid on the server (\(one ? "it was" : "they were") not revoked): revoke \(one ? "it" : "them") with \(commands)."
    }

    /// What became of the token, as the removal's first sentence says it.
    static func tokenGone(_ token: TokenRevocation) -> String {
        if token.keyringLeft != nil { return "the account is deleted here, but its API token is not: the keyring item that holds it is still there" }
        return switch token.current {
        case .revoked(let name): "the API token \(TerminalText.escaped(name)) is revoked on the server and deleted"
        case .refused: "the API token, which the server no longer accepts, is deleted"
        case .notRevoked, .stillValid, .unnamed, .unread: "the API token is deleted here"
        }
    }

    /// Why the removal was held, as a clause: what failed and what still stands (not escaped
    /// for a terminal).
    static func held(_ hold: RemovalHold) -> String {
        let why = CommandRunner.sentence(FailureText.said(hold.failure))
        switch hold {
        case .deregistrationFailed: return "this device could not be deregistered: \(why)"
        case .stepFailed: return "this device is deregistered, but the pre-remove hook did not pass: \(why)"
        case .revocationFailed(let name, _) where hold.revocationInterrupted:
            return
                "this device is deregistered and the pre-remove hook passed, but the revocation of the API token \(name) was cut short: whether the server revoked it is not known"
        case .revocationFailed(let name, _):
            return "this device is deregistered and the pre-remove hook passed, but the API token \(name) could not be revoked on the server: \(why)"
        case .tokenStillValid:
            return "this device is deregistered and the pre-remove hook passed, but \(why)"
        }
    }

    /// What ends a held removal besides the runs that retry it.
    static func wayOut(_ hold: RemovalHold, account: String) -> String {
        switch hold {
        case .deregistrationFailed: "or `\(ShellWords.gitbaySync("remove-account", account, "--force"))` deletes it now"
        case .stepFailed:
            "fix the hook (runs run it again), or `\(ShellWords.gitbaySync("remove-account", account, "--force"))` deletes the token now"
        case .revocationFailed, .tokenStillValid:
            "or `\(ShellWords.gitbaySync("remove-account", account, "--force"))` deletes it here now (it then stays valid on the server until revoked by hand)"
        }
    }

    /// `outcome` with what its run did to the API token said in its reason (after any the
    /// command line put there).
    static func renewal(_ outcome: SaidOutcome) -> SaidOutcome {
        var said: [String] = outcome.reason.map { [$0] } ?? []
        if let move = outcome.tokenMove { said.append(KeyringText.moved(move)) }
        guard let renewal = outcome.tokenRenewal else {
            var outcome = outcome
            if !said.isEmpty { outcome.reason = said.joined(separator: "; ") }
            return outcome
        }
        if let successor = renewal.successor, let predecessor = renewal.predecessor {
            let revoked = renewal.predecessorRevoked ? "revoked" : "left to revoke at the next run"
            said.append(
                "API token rotated before its expiry: \(TerminalText.escaped(successor)) replaces \(TerminalText.escaped(predecessor)), \(revoked)")
        }
        if !renewal.revoked.isEmpty {
            said.append(
                "stale API token\(renewal.revoked.count == 1 ? "" : "s") of this device revoked: \(renewal.revoked.map(TerminalText.escaped).joined(separator: ", "))"
            )
        }
        if let failure = renewal.failure {
            said.append("the API token could not be renewed (\(CommandRunner.sentence(failure.description))); the next `gitbay-sync run` tries again")
        }
        var outcome = outcome
        if !said.isEmpty { outcome.reason = said.joined(separator: "; ") }
        return outcome
    }
}
