import GitbayAPI
import GitbayReconcile
import GitbayState
import GitbaySupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `accounts`.
struct AccountsCommand: PlainCommand {
    static let spec = CommandSpec(
        words: ["accounts"], group: .accounts, arguments: [], options: [], summary: "List the signed-in accounts.",
        discussion: "Every account with its state, its condition and this device's row on its server.",
        examples: [
            .init("List the signed-in accounts and their state", ["accounts"]),
            .init("Only the account names, one a line", ["accounts", "--json"], after: "| jq -r '.accounts[].account'"),
        ]
    )

    func run(_ runner: CommandRunner) async throws -> ExitCode {
        try await runner.accounts()
    }
}

extension CommandRunner {
    /// `accounts`.
    fileprivate func accounts() async throws -> ExitCode {
        let store = try await openExistingStore()
        show(AccountsOutput(rows: AccountRow.rows(try await store.accountFacts()), style: textStyle, width: textWidth))
        return .success
    }
}

/// What `accounts` prints.
struct AccountsOutput: CommandOutput {
    let rows: [AccountRow]
    var style: TextStyle = .plain
    /// The terminal's width, to wrap to (nil: whole lines).
    var width: Int? = nil

    var json: JSONValue { .object([("accounts", .array(rows.map(\.json)))]) }

    var text: [String] {
        guard !rows.isEmpty else { return ["No accounts. Sign in with `gitbay-sync login <instance-url>`."] }
        let nameWidth = AccountRow.nameWidth(rows)
        return TextLayout.fitted(rows.map { $0.text(nameWidth: nameWidth, style: style) }, width: width)
    }
}
