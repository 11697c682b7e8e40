import GitbayAPI
import GitbayReconcile
import GitbayState
import GitbaySupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `resume <account>`.
struct ResumeCommand: AccountCommand {
    static let sendsRequests = true

    static let spec = CommandSpec(
        words: ["resume"], group: .accounts, arguments: [.account], options: [], summary: "Undo `pause`: register this device for the account again.",
        discussion: """
            Registers this device for the account again at once (or leaves it shadowed, when another
            account of the instance holds the device token). If the server cannot be reached, the
            command exits 1 and `gitbay-sync run` registers the device once the server answers.
            """,
        examples: [
            .init("Pushes from the work account again", ["resume", "alice@gitbay.example.com"])
        ]
    )

    let account: String

    func run(_ runner: CommandRunner) async throws -> ExitCode {
        try await runner.changeState(account, to: .active) { account, outcome in runner.resumedText(account, outcome) }
    }
}

extension CommandRunner {
    /// What `resume` did: whether the device is registered for the account now.
    fileprivate func resumedText(_ account: AccountRecord, _ outcome: SaidOutcome?) -> String {
        let name = TerminalText.escaped(account.name)
        guard let outcome, outcome.action != .failed else {
            return
                "Resumed \(name) here, but this device could not be registered on \(account.instance) (the error is below): it gets no pushes for the account \(Self.untilRun)."
        }
        switch outcome.condition {
        case .registered:
            return "Resumed \(name): this device is registered for it" + (outcome.deviceID.map { " (device \($0))" } ?? "") + "."
        case .shadowed:
            return
                "Resumed \(name): \(outcome.shadowedBy.map(TerminalText.escaped) ?? "another account") holds this device's token on \(account.instance), so \(name) is shadowed (`\(ShellWords.gitbaySync("prefer", name))` moves the token to it)."
        case .noDeviceToken:
            return "Resumed \(name): no device token is set yet; `gitbay-sync device set-token` and then `gitbay-sync run` register it."
        default:
            return "Resumed \(name) (\(outcome.condition.rawValue))."
        }
    }
}
