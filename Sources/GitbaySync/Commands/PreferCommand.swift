import GitbayAPI
import GitbayReconcile
import GitbayState
import GitbaySupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `prefer <account>`.
struct PreferCommand: AccountCommand {
    static let sendsRequests = true

    static let spec = CommandSpec(
        words: ["prefer"], group: .accounts, arguments: [.account], options: [],
        summary: "Choose which account of an instance holds this device's token.",
        discussion: """
            A gitbay server gives a device token to one account of an instance at a time. With two
            accounts on one instance, the earliest signed in holds it unless you prefer another.
            The token moves at once; a paused account (or one whose API token was refused) cannot
            hold it, and takes it once resumed (or signed in again).
            """,
        examples: [
            .init("Two accounts on gitbay.org: let bob's hold this device's token", ["prefer", "bob@gitbay.org"])
        ]
    )

    let account: String

    func run(_ runner: CommandRunner) async throws -> ExitCode {
        try await runner.prefer(account)
    }
}

extension CommandRunner {
    /// `prefer <account>`: make it the holder of the device token on its instance.
    fileprivate func prefer(_ name: String) async throws -> ExitCode {
        let store = try await openStore()
        let account = try await account(named: name, in: store)
        let accounts = try await store.accounts().filter { $0.instance == account.instance }
        let result = try await liveReconcile(store, order: accounts) { try await $0.prefer(account) }
        let text = preferredText(account, result.outcomes)
        return try showLive(
            result, ReconciledOutput(fields: [("account", .string(account.name))], outcomes: result.outcomes, text: [text]), among: accounts)
    }

    /// What `prefer` did: the choice is stored in any case; whether the account holds the
    /// token now depends on its state and its server.
    fileprivate func preferredText(_ account: AccountRecord, _ outcomes: [SaidOutcome]) -> String {
        let name = TerminalText.escaped(account.name)
        let own = outcomes.first { $0.accountID == account.id }
        let holder = outcomes.first { $0.account != account.name && $0.condition == .registered }.map { TerminalText.escaped($0.account) }
        let preferred = "\(name) is now the preferred account on \(account.instance)"
        if own?.condition == .registered {
            return "\(name) now holds this device's token on \(account.instance)."
        }
        if account.state == .paused {
            let now = holder.map { "\($0) holds it meanwhile" } ?? "no account holds it meanwhile"
            return
                "\(preferred), but it is paused, so it cannot hold this device's token: \(now). `\(ShellWords.gitbaySync("resume", name))` registers the device for it and moves the token to it."
        }
        guard let own else {
            return "\(preferred); it holds this device's token from the next `gitbay-sync run`."
        }
        switch own.condition {
        case .authFailed:
            return
                "\(preferred), but its API token was refused, so it cannot hold this device's token until you \(FailureText.signInAgain(account))."
        case .noDeviceToken:
            return
                "\(preferred); no device token is set yet: it holds the token once one is set (`gitbay-sync device set-token`) and `gitbay-sync run` registers it."
        default:
            if own.action == .skipped {
                return "\(preferred); \(own.reason ?? "it was not reconciled"), and it holds this device's token after that run \(Self.orNextRun)."
            }
            return
                "\(preferred), but the token could not be moved to it yet (the error is below): it holds the token once `gitbay-sync run` gets through to the server (the timer runs it, if installed)."
        }
    }
}
