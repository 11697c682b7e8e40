import GitbayAPI
import GitbayReconcile
import GitbayState
import GitbaySupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `devices [<account>]`.
struct DevicesCommand: ListingCommand {
    static let sendsRequests = true

    static let spec = CommandSpec(
        words: ["devices"], group: .lookingAround, arguments: [.onlyAccount], options: [],
        summary: "List the devices registered on each account's server.",
        discussion: "Marks this device's row and rows of this install's old tokens. To remove a row: `gitbay-sync devices remove <account> <id>`.",
        examples: [
            .init("Every device on every account's server, this one marked", ["devices"]),
            .init("One account's devices", ["devices", "alice@gitbay.org"]),
        ]
    )

    let account: String?

    init(account: String? = nil) {
        self.account = account
    }

    func run(_ runner: CommandRunner) async throws -> ExitCode {
        try await runner.devices(account)
    }
}

extension CommandRunner {
    /// `devices [<account>]`: every account's server device list (or one's), asked concurrently,
    /// with this device's rows marked, each printed as it lands (`liveFanOut`).
    fileprivate func devices(_ name: String?) async throws -> ExitCode {
        let store = try await openExistingStore()
        let accounts = try await accounts(only: name, in: store)
        let device = try await store.device()
        var records: [Int64: [RegistrationRecord]] = [:]
        for account in accounts {
            records[account.id] = try await store.registrations(ofAccount: account.id)
        }
        let (kept, now) = (records, context.now())
        let list = { @Sendable (result: AccountFanOut.Answer<[ServerDevice]>) in
            DevicesOutput.AccountList(
                account: result.account,
                listed: result.outcome.map { rows in
                    let ownership = RowOwnership(device: device, records: kept[result.account.id] ?? [], rows: rows)
                    return rows.map { ListedDevice(row: $0, kind: ownership.kind(of: $0)) }
                }.mapError { DevicesOutput.ListingError(message: "\($0)") })
        }
        let results = await liveFanOut(accounts, store: store, asking: { try await Self.fullList($0) }, text: { list($0).text(now: now) })
        let lists = results.answers.map(list)
        if global.json || accounts.isEmpty { show(DevicesOutput(lists: lists, now: now)) }
        let failures = lists.compactMap { list in list.error.map { (list.account.name, $0) } }
        let code = finish(PartialFailureSummary(failures: failures, total: accounts.count))
        if results.interrupted { try stoppedAsking(accounts, answered: lists.map(\.account)) }
        return code
    }
}

/// What `devices` prints: each account's list, or why it could not be listed.
struct DevicesOutput: CommandOutput {
    struct AccountList {
        let account: AccountRecord
        let listed: Result<[ListedDevice], ListingError>

        var error: String? {
            if case .failure(let error) = listed { return error.message }
            return nil
        }

        var json: JSONValue {
            .object([
                ("account", .string(account.name)),
                ("instance", .string(account.instance.description)),
                ("state", .string(account.state.rawValue)),
                ("ok", .bool(error == nil)),
                ("error", .optional(error)),
                ("devices", (try? listed.get()).map { .array($0.map(\.json)) } ?? .null),
            ])
        }

        var heading: String {
            account.state == .active ? TerminalText.escaped(account.name) : "\(escaped: account.name) (\(account.state.rawValue))"
        }

        func text(now: Date) -> [String] {
            guard case .success(let listed) = listed else { return ["\(heading): could not list the devices (see below)"] }
            let count = listed.count == 1 ? "1 device" : "\(listed.count) devices"
            let idWidth = listed.map { String($0.row.id).count }.max() ?? 0
            let labelWidth = listed.map(\.shownLabel.count).max() ?? 0
            return ["\(heading): \(listed.isEmpty ? "no devices" : count)"]
                + listed.map { $0.text(idWidth: idWidth, labelWidth: labelWidth, now: now) }
        }
    }

    /// Why an account's list is missing, as the server or the network said it.
    struct ListingError: Error {
        let message: String
    }

    let lists: [AccountList]
    /// The time the rows' `added` times are said against.
    let now: Date

    var json: JSONValue { .object([("accounts", .array(lists.map(\.json)))]) }

    var text: [String] {
        lists.isEmpty ? ["No accounts. Sign in with `gitbay-sync login <instance-url>`."] : lists.flatMap { $0.text(now: now) }
    }
}
