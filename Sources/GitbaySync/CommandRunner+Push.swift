import FoundationEssentials
import GitbaySupport

extension CommandRunner {
    /// `push on|off <account>` and `push show [<account>]`: the account's server-side push switch.
    func push(_ action: Command.PushAction, account name: String?) async throws -> ExitCode {
        // push on|off changes a server setting, not the state database: it needs an account
        // signed in here, so it creates no database either.
        let store = try await openExistingStore()
        switch action {
        case .on, .off:
            guard let name else { preconditionFailure("the parser requires an account for push on|off") }
            let account = try await account(named: name, in: store)
            let on = action == .on
            let settings = try await fanOut(store).run([account]) { client in try await client.setPush(on) }[0].outcome.get()
            guard settings.push == on else {
                throw CommandFailure("\(account.name): the server still reports push \(settings.push ? "on" : "off") after `notifications settings push \(action.rawValue)`", exitCode: .unavailable)
            }
            if global.json {
                printJSON(.object([("account", .string(account.name)), ("push", .bool(settings.push))]))
            } else if settings.push {
                context.console.out("Push notifications for \(escaped: account.name) are on.")
            } else {
                context.console.out("Push notifications for \(escaped: account.name) are off: its devices stay registered, and the server sends nothing until `gitbay-sync push on \(escaped: account.name)`.")
            }
            return .success
        case .show:
            let accounts = if let name { [try await account(named: name, in: store)] } else { try await store.accounts() }
            let results = await fanOut(store).run(accounts) { client in try await client.settings() }
            var entries: [JSONValue] = []
            var failures: [(name: String, error: any Error)] = []
            let width = accounts.map { TerminalText.escaped($0.name).count }.max() ?? 0
            for result in results {
                let name = TerminalText.escaped(result.account.name)
                let padded = name + String(repeating: " ", count: width - name.count)
                switch result.outcome {
                case .success(let settings):
                    entries.append(.object([("account", .string(result.account.name)), ("push", .bool(settings.push)), ("error", .null)]))
                    if !global.json { context.console.out("\(padded)  push \(settings.push ? "on" : "off")") }
                case .failure(let error):
                    failures.append((result.account.name, error))
                    entries.append(.object([("account", .string(result.account.name)), ("push", .null), ("error", .string("\(error)"))]))
                    if !global.json { context.console.out("\(padded)  push unknown (see below)") }
                }
            }
            if global.json {
                printJSON(.object([("accounts", .array(entries))]))
            } else if accounts.isEmpty {
                context.console.out("No accounts. Sign in with `gitbay-sync login <instance-url>`.")
            }
            for failure in failures { context.console.err("Error: \(escaped: String(describing: failure.error))") }
            if !failures.isEmpty {
                context.console.err("\(failures.count) of \(accounts.count) accounts failed: \(escaped: failures.map(\.name).joined(separator: ", ")).")
            }
            return failures.isEmpty ? .success : .partialFailure
        }
    }
}
