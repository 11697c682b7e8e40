import GitbayAPI
import GitbayReconcile
import GitbayState
import GitbaySupport

/// The core's failures as the command line says them: the core's words (what failed, with any
/// step that needs no program), then the step this command line offers for it: a sign-in
/// command for a token to replace, another `--db` for a state database it cannot use.
enum FailureText {
    /// Any error, in the command line's words; `instance` names the account's instance in a
    /// sign-in command (else `<instance-url>`), `ssh` the SSH destination it signed in over.
    static func said(_ error: any Error, instance: InstanceURL? = nil, ssh: String? = nil) -> String {
        switch error {
        case let gitbay as GitbayError: said(gitbay, instance: instance, ssh: ssh)
        case let store as StoreError: said(store)
        default: String(describing: error)
        }
    }

    /// An account's failure as the command line says it: the core's words, with this
    /// program named where they mean the one that wrote the state database.
    static func said(_ failure: AccountFailure) -> String {
        if case .local(.store(let error)) = failure { error.description(program: "gitbay-sync") } else { failure.description }
    }

    static func said(_ error: GitbayError, instance: InstanceURL?, ssh: String? = nil) -> String {
        switch error.kind {
        case .authFailed, .readOnlyToken: "\(error) \(capitalized(signInAgain(instance, account: error.account, ssh: ssh)))."
        case .protocolVersion: "\(error) Update gitbay-sync."
        default: error.description
        }
    }

    static func said(_ error: StoreError) -> String {
        let text = error.description(program: "gitbay-sync")
        return switch error {
        case .notADatabase, .newerSchema, .changedMigration, .notWritable, .writableByOthers:
            "\(text), or pass another --db"
        case .foreignOwner, .foreignFolder:
            "\(text); or pass a --db of your own"
        case .symbolicLink:
            "\(text); if you made it, pass the real path as --db"
        case .noDatabase:
            "\(text). Sign in with `gitbay-sync login <instance-url>` to start one, or pass the --db you use"
        case .busy, .sqlite:
            text
        }
    }

    /// The one sign-in hint every message about a token to replace gives, both ways spelled
    /// out: `login --ssh` mints a token, or a token minted by hand is pasted. `ssh` is the
    /// destination the account signed in over (`AccountRecord.sshDestination`): both ways then
    /// go there, not to `git@` and the instance's host.
    static func signInAgain(_ instance: InstanceURL?, account: String, ssh: String? = nil) -> String {
        let given = ssh.flatMap { try? SSHDestination(parsing: $0) }
        let paste = instance.map { ShellWords.gitbaySync("login", $0) } ?? "gitbay-sync login <instance-url>"
        let login = paste + " --ssh" + (given.map { " " + ShellWords.quoted($0.description) } ?? "")
        let mintWords = ["token", "create", "--name", TokenMinting.suggestedName, "--scope", "full"]
        let mint =
            if let instance { SSHDestination.stored(ssh, instance: instance).command(mintWords) } else if let given {
                given.command(mintWords)
            } else { TokenMinting.command(forAccount: account) }
        return "sign in again with a full-scope token: `\(login)` mints one, or mint one with `\(mint)` and paste it into `\(paste)`"
    }

    /// The same for a signed-in account: its instance and the SSH destination it signed in over.
    static func signInAgain(_ account: AccountRecord) -> String {
        signInAgain(account.instance, account: account.name, ssh: account.sshDestination)
    }

    /// The fix for a stored user name gitbay never gives: the command that removes the account,
    /// with its name `shown` (escaped for a terminal, then quoted) or as stored (for `--json`).
    static func removeUnusable(_ account: AccountRecord, shown: Bool) -> String {
        let name = shown ? TerminalText.escaped(account.name) : account.name
        return "`\(ShellWords.gitbaySync("remove-account", name))`, then sign in again"
    }

    private static func capitalized(_ text: String) -> String {
        text.prefix(1).uppercased() + text.dropFirst()
    }
}
