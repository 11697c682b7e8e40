import GitbayAPI
import GitbayReconcile
import GitbayState
import GitbaySupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `pause <account>`.
struct PauseCommand: AccountCommand {
    static let sendsRequests = true

    static let spec = CommandSpec(
        words: ["pause"], group: .accounts, arguments: [.account], options: [],
        summary: "Stop pushes to this device for an account, keeping it signed in.",
        discussion: """
            Deregisters this device for the account at once, and keeps it that way until `resume`.
            If the server cannot be reached, the account is paused all the same, the command exits 1,
            and `gitbay-sync run` deregisters the device once the server answers.
            """,
        examples: [
            .init("No pushes from the work account until it is resumed", ["pause", "alice@gitbay.example.com"]),
            .init("A user name alone names the account when no other account has it", ["pause", "alice"]),
        ]
    )

    let account: String

    func run(_ runner: CommandRunner) async throws -> ExitCode {
        try await runner.changeState(account, to: .paused) { account, outcome in runner.pausedText(account, outcome) }
    }
}

extension CommandRunner {
    /// What `pause` did: the account is paused here in any case; whether its row left the
    /// server depends on the server.
    fileprivate func pausedText(_ account: AccountRecord, _ outcome: SaidOutcome?) -> String {
        let name = TerminalText.escaped(account.name)
        let until = "until `\(ShellWords.gitbaySync("resume", name))`"
        guard let outcome, outcome.action != .failed else {
            return
                "Paused \(name) here, but this device could not be deregistered on \(account.instance) (the error is below): it may get the account's pushes \(Self.untilRun)."
        }
        if outcome.action == .skipped {
            return
                "Paused \(name) here; \(outcome.reason ?? "it was not reconciled"), so this device is deregistered on \(account.instance) by that run \(Self.orNextRun). It stays paused \(until)."
        }
        return "Paused \(name): this device is deregistered on \(account.instance) and stays so \(until)."
    }
}
