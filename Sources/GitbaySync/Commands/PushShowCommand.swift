import FoundationEssentials
import GitbaySupport

/// `push show [<account>]`.
struct PushShowCommand: CommandDefinition {
    static let spec = CommandSpec(
        words: ["push", "show"], arguments: [.onlyAccount], options: [],
        summary: "Show the push switch of each account (or one).",
        discussion: "Reads `notifications settings show` for each account."
    )

    let account: String?

    init(account: String? = nil) {
        self.account = account
    }

    init(_ input: CommandInput) throws(UsageError) {
        account = input.value(.onlyAccount)
    }

    func run(_ runner: CommandRunner) async throws -> ExitCode {
        try await runner.showPush(account: account)
    }
}

extension CommandRunner {
    /// `push show [<account>]`: the push switch of each account (or one), asked concurrently.
    fileprivate func showPush(account name: String?) async throws -> ExitCode {
        let store = try await openExistingStore()
        let accounts = if let name { [try await account(named: name, in: store)] } else { try await store.accounts() }
        let results = await fanOut(store).run(accounts) { client in try await client.settings() }
        var entries: [JSONValue] = []
        var failures: [(account: String, error: String)] = []
        let width = accounts.map { TerminalText.escaped($0.name).count }.max() ?? 0
        for result in results {
            let name = TerminalText.escaped(result.account.name)
            let padded = name + String(repeating: " ", count: width - name.count)
            switch result.outcome {
            case .success(let settings):
                entries.append(.object([("account", .string(result.account.name)), ("push", .bool(settings.push)), ("error", .null)]))
                if !global.json { context.console.out("\(padded)  push \(settings.push ? "on" : "off")") }
            case .failure(let error):
                failures.append((result.account.name, "\(error)"))
                entries.append(.object([("account", .string(result.account.name)), ("push", .null), ("error", .string("\(error)"))]))
                if !global.json { context.console.out("\(padded)  push unknown (see below)") }
            }
        }
        if global.json {
            printJSON(.object([("accounts", .array(entries))]))
        } else if accounts.isEmpty {
            context.console.out("No accounts. Sign in with `gitbay-sync login <instance-url>`.")
        }
        let summary = PartialFailureSummary(failures: failures, total: accounts.count, count: .plural)
        summary.lines().forEach(context.console.err)
        return summary.isEmpty ? .success : .partialFailure
    }
}
