import FoundationEssentials
import GitbayAPI
import GitbayReconcile
import GitbayState
import GitbaySupport

/// `devices [<account>]`.
struct DevicesCommand: CommandDefinition {
    static let spec = CommandSpec(
        words: ["devices"], arguments: [.onlyAccount], options: [],
        summary: "List the devices registered on each account's server.",
        discussion: "Marks this device's row and rows of this install's old tokens. To remove a row: `gitbay-sync devices remove <account> <id>`."
    )

    let account: String?

    init(account: String? = nil) {
        self.account = account
    }

    init(_ input: CommandInput) throws(UsageError) {
        account = input.value(.onlyAccount)
    }

    func run(_ runner: CommandRunner) async throws -> ExitCode {
        try await runner.devices(account)
    }
}

extension CommandRunner {
    /// `devices [<account>]`: every account's server device list (or one's), asked concurrently,
    /// with this device's rows marked.
    fileprivate func devices(_ name: String?) async throws -> ExitCode {
        let store = try await openExistingStore()
        let accounts = if let name { [try await account(named: name, in: store)] } else { try await store.accounts() }
        let device = try await store.device()
        var records: [Int64: [RegistrationRecord]] = [:]
        for account in accounts {
            records[account.id] = try await store.registrations(ofAccount: account.id)
        }
        let results = await fanOut(store).run(accounts) { client in try await Self.fullList(client) }

        var failures: [(account: String, error: String)] = []
        var entries: [JSONValue] = []
        for result in results {
            let account = result.account
            switch result.outcome {
            case .success(let rows):
                let ownership = RowOwnership(device: device, records: records[account.id] ?? [], rows: rows)
                let listed = rows.map { ListedDevice(row: $0, kind: ownership.kind(of: $0)) }
                entries.append(devicesJSON(account, listed: listed, error: nil))
                if !global.json { printDevices(account, listed) }
            case .failure(let error):
                failures.append((account.name, "\(error)"))
                entries.append(devicesJSON(account, listed: nil, error: "\(error)"))
                if !global.json { context.console.out("\(Self.heading(account)): could not list the devices (see below)") }
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

    private func printDevices(_ account: AccountRecord, _ listed: [ListedDevice]) {
        let count = listed.count == 1 ? "1 device" : "\(listed.count) devices"
        context.console.out("\(Self.heading(account)): \(listed.isEmpty ? "no devices" : count)")
        let idWidth = listed.map { String($0.row.id).count }.max() ?? 0
        let labelWidth = listed.map(\.shownLabel.count).max() ?? 0
        for device in listed {
            context.console.out(device.text(idWidth: idWidth, labelWidth: labelWidth))
        }
    }

    private func devicesJSON(_ account: AccountRecord, listed: [ListedDevice]?, error: String?) -> JSONValue {
        .object([
            ("account", .string(account.name)),
            ("instance", .string(account.instance.description)),
            ("state", .string(account.state.rawValue)),
            ("ok", .bool(error == nil)),
            ("error", .optional(error)),
            ("devices", listed.map { .array($0.map(\.json)) } ?? .null),
        ])
    }

    private static func heading(_ account: AccountRecord) -> String {
        account.state == .active ? TerminalText.escaped(account.name) : "\(escaped: account.name) (\(account.state.rawValue))"
    }
}
