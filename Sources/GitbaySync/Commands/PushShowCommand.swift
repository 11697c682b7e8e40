import GitbayAPI
import GitbaySupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `push show [<account>]`.
struct PushShowCommand: ListingCommand {
    static let sendsRequests = true

    static let spec = CommandSpec(
        words: ["push", "show"], group: .pushSwitch, arguments: [.onlyAccount], options: [],
        summary: "Show the push switch of each account (or one).",
        discussion: "Reads `notifications settings show` for each account.",
        examples: [
            .init("Whether each account's server sends pushes at all", ["push", "show"])
        ]
    )

    let account: String?

    init(account: String? = nil) {
        self.account = account
    }

    func run(_ runner: CommandRunner) async throws -> ExitCode {
        try await runner.showPush(account: account)
    }
}

extension CommandRunner {
    /// `push show [<account>]`: the push switch of each account (or one), asked concurrently,
    /// each printed as it lands (`liveFanOut`).
    fileprivate func showPush(account name: String?) async throws -> ExitCode {
        let store = try await openExistingStore()
        let accounts = try await accounts(only: name, in: store)
        let width = accounts.map { TerminalText.escaped($0.name).count }.max() ?? 0
        let entry = { @Sendable (result: AccountFanOut.Answer<NotificationSettings>) in
            PushShowOutput.Switch(account: result.account.name, push: try? result.outcome.get().push, error: result.outcome.failureText)
        }
        let results = await liveFanOut(accounts, store: store, asking: { try await $0.settings() }, text: { [entry($0).text(width: width)] })
        let switches = results.answers.map(entry)
        if global.json || accounts.isEmpty { show(PushShowOutput(switches: switches)) }
        let failures = switches.compactMap { entry in entry.error.map { (entry.account, $0) } }
        let code = finish(PartialFailureSummary(failures: failures, total: accounts.count))
        if results.interrupted { try stoppedAsking(accounts, answered: results.answers.map(\.account)) }
        return code
    }
}

/// What `push show` prints: each account's switch, or why it is unknown.
struct PushShowOutput: CommandOutput {
    struct Switch {
        let account: String
        /// The switch; nil when it could not be read.
        let push: Bool?
        let error: String?

        /// The account's line, its name padded to `width`.
        func text(width: Int) -> String {
            let name = TerminalText.escaped(account)
            let padded = name + String(repeating: " ", count: max(0, width - name.count))
            return "\(padded)  push " + (push.map { $0 ? "on" : "off" } ?? "unknown (see below)")
        }
    }

    let switches: [Switch]

    var json: JSONValue {
        .object([
            (
                "accounts",
                .array(
                    switches.map { entry in
                        .object([
                            ("account", .string(entry.account)), ("push", entry.push.map(JSONValue.bool) ?? .null), ("error", .optional(entry.error)),
                        ])
                    })
            )
        ])
    }

    var text: [String] {
        guard !switches.isEmpty else { return ["No accounts. Sign in with `gitbay-sync login <instance-url>`."] }
        let width = switches.map { TerminalText.escaped($0.account).count }.max() ?? 0
        return switches.map { $0.text(width: width) }
    }
}
