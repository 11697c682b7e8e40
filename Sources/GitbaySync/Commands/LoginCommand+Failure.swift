import GitbayAPI
import GitbayReconcile
import GitbaySupport

extension CommandRunner {
    /// What a sign-in that stored nothing says, and its exit code.
    static func loginFailure(_ failure: SyncEngine.SignInFailure, instance: InstanceURL) -> CommandFailure {
        let mint =
            "Mint a new one with `\(TokenMinting.command(for: instance))`, or let gitbay-sync mint its own with `\(ShellWords.gitbaySync("login", instance, "--ssh"))`."
        switch failure {
        case .tokenRefused:
            return CommandFailure("\(instance) refused the API token (invalid, expired or revoked); nothing was stored. \(mint)", exitCode: .denied)
        case .readOnlyToken:
            return CommandFailure(
                "the API token is read-only, and registering a device needs a full-scope token; nothing was stored. \(mint)", exitCode: .denied)
        case .notGitbay:
            return CommandFailure(
                "\(instance) did not answer as a gitbay API (is `[api] enabled = true` there, and is the address right?); nothing was stored.",
                exitCode: .unavailable)
        case .unusableUsername(let username):
            return CommandFailure(
                "\(instance) answered `whoami` with \"\(username)\", which is not a gitbay user name (\(UserName.rule)); a gitbay server never answers so, so check that the address is a gitbay server; nothing was stored.",
                exitCode: .dataError)
        case .alreadySignedIn(let twin):
            return CommandFailure(
                "already signed in as \(twin.name): \(instance) is the same server, so this would be the same account twice; nothing was stored. Sign in again under that name with `\(ShellWords.gitbaySync("login", twin.instance))`, or remove it first with `\(ShellWords.gitbaySync("remove-account", twin.name))`.",
                exitCode: .dataError)
        case .keyringUnavailable(let reason):
            return CommandFailure(
                "could not keep the API token in the OS keyring, as --token-store keyring asks: \(reason); nothing was stored. \(KeyringText.fix(reason)), or keep the token in the database with `--token-store database`.",
                exitCode: .unavailable)
        case .busy(let pid):
            return CommandFailure(
                "another gitbay-sync (pid \(pid)) is working on this account of \(instance) right now (a run reconciling it or renewing its API token), and went on for longer than \(SyncEngine.signInLeaseWait.shortDescription); nothing was stored. Sign in again once it is done.",
                exitCode: .busy)
        case .failed(let error as GitbayError):
            return CommandFailure(
                "could not sign in at \(instance): \(sentence(FailureText.said(error, instance: instance))); nothing was stored.",
                exitCode: error.kind == .denied ? .denied : .unavailable)
        case .failed(let error):
            return CommandFailure("could not sign in at \(instance): \(FailureText.said(error)); nothing was stored.", exitCode: .unavailable)
        }
    }
}
