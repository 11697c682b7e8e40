import GitbayAPI
import GitbayState
import GitbaySupport

/// The core's failures as the command line says them: the core's words (what failed, with any
/// step that needs no program), then the step this command line offers for it: a sign-in
/// command for a token to replace, another `--db` for a state database it cannot use.
enum FailureText {
    /// Any error, in the command line's words; `instance` names the account's instance in a
    /// sign-in command (else `<instance-url>`).
    static func said(_ error: any Error, instance: InstanceURL? = nil) -> String {
        switch error {
        case let gitbay as GitbayError: said(gitbay, instance: instance)
        case let store as StoreError: said(store)
        default: String(describing: error)
        }
    }

    static func said(_ error: GitbayError, instance: InstanceURL?) -> String {
        switch error.kind {
        case .authFailed, .readOnlyToken: "\(error) \(capitalized(signInAgain(instance, account: error.account)))."
        case .protocolVersion: "\(error) Update gitbay-sync."
        default: error.description
        }
    }

    static func said(_ error: StoreError) -> String {
        switch error {
        case .notADatabase, .newerSchema, .changedMigration, .notWritable, .writableByOthers:
            "\(error), or pass another --db"
        case .foreignOwner, .foreignFolder:
            "\(error); or pass a --db of your own"
        case .symbolicLink:
            "\(error); if you made it, pass the real path as --db"
        case .noDatabase:
            "\(error). Sign in with `gitbay-sync login <instance-url>` to start one, or pass the --db you use"
        case .busy, .sqlite:
            error.description
        }
    }

    /// The one sign-in hint every message about a token to replace gives, both ways spelled
    /// out: `login --ssh` mints a token, or a token minted by hand is pasted.
    static func signInAgain(_ instance: InstanceURL?, account: String) -> String {
        let url = instance?.description ?? "<instance-url>"
        let mint = instance.map(TokenMinting.command(for:)) ?? TokenMinting.command(forAccount: account)
        return
            "sign in again with a full-scope token: `gitbay-sync login \(url) --ssh` mints one, or mint one with `\(mint)` and paste it into `gitbay-sync login \(url)`"
    }

    private static func capitalized(_ text: String) -> String {
        text.prefix(1).uppercased() + text.dropFirst()
    }
}
