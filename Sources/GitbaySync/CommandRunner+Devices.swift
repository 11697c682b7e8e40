import FoundationEssentials
import GitbayAPI
import GitbayReconcile
import GitbayState
import GitbaySupport

extension CommandRunner {
    /// `devices [<account>]`: every account's server device list (or one's), asked concurrently,
    /// with this device's rows marked.
    func devices(_ name: String?) async throws -> ExitCode {
        let store = try await openExistingStore()
        let accounts = if let name { [try await account(named: name, in: store)] } else { try await store.accounts() }
        let device = try await store.device()
        var records: [Int64: [RegistrationRecord]] = [:]
        for account in accounts {
            records[account.id] = try await store.registrations(ofAccount: account.id)
        }
        let results = await fanOut(store).run(accounts) { client in try await Self.fullList(client) }

        var failures: [(account: AccountRecord, error: any Error)] = []
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
                failures.append((account, error))
                entries.append(devicesJSON(account, listed: nil, error: "\(error)"))
                if !global.json { context.console.out("\(Self.heading(account)): could not list the devices (see below)") }
            }
        }
        if global.json {
            printJSON(.object([("accounts", .array(entries))]))
        } else if accounts.isEmpty {
            context.console.out("No accounts. Sign in with `gitbay-sync login <instance-url>`.")
        }
        for failure in failures {
            context.console.err("Error: \(escaped: String(describing: failure.error))")
        }
        if !failures.isEmpty {
            context.console.err("\(failures.count) of \(accounts.count) accounts failed: \(escaped: failures.map(\.account.name).joined(separator: ", ")).")
        }
        return failures.isEmpty ? .success : .partialFailure
    }

    /// `devices remove <account> <id> [--yes]`: removes one row of the account's server list,
    /// after confirmation on a terminal.
    func removeListedDevice(_ name: String, id: Int, yes: Bool) async throws -> ExitCode {
        guard yes || context.console.inputIsTerminal else {
            throw UsageError("not removing device \(id) without --yes: there is no terminal to ask for confirmation on", command: ["devices", "remove"])
        }
        let store = try await openStore()
        let account = try await account(named: name, in: store)
        let client = try await GitbayClient.forAccount(account, in: store, configuration: context.client, logger: logger)
        let rows = try await Self.fullList(client)
        let ownership = RowOwnership(device: try await store.device(), records: try await store.registrations(ofAccount: account.id), rows: rows)
        let listed = rows.first { $0.id == id }.map { ListedDevice(row: $0, kind: ownership.kind(of: $0)) }

        var outcome = RemoveOutcome.alreadyGone
        if let listed {
            if !yes {
                let note = switch listed.kind {
                case .current: " It is this device's own row."
                case .oldToken: " It is a row of this device's old token."
                case .unsettled: " It is a row of this device's, of the current token or an old one."
                case .notOurs: ""
                }
                let question = "Remove device \(id) \"\(listed.shownLabel)\" (\(listed.shownToken)) from \(escaped: account.name)?\(note)"
                guard context.console.confirm(question) else {
                    throw CommandFailure("not confirmed; nothing removed", exitCode: .partialFailure)
                }
            }
            outcome = try await client.removeDevice(id: id)
        }
        // Whatever the server said, the row is gone now: a record of it would be stale, and a
        // remembered list tag must not vouch for the list it was part of.
        try await store.forgetRegistration(accountID: account.id, deviceID: id)
        if listed.map({ $0.kind != .notOurs }) ?? false {
            var status = try await store.status(ofAccount: account.id)
            status.listETag = nil
            status.etagBasis = nil
            try await store.saveStatus(status, ofAccount: account.id)
        }

        if global.json {
            printJSON(.object([
                ("account", .string(account.name)),
                ("id", .int(id)),
                ("result", .string(outcome == .removed ? "removed" : "already-gone")),
                ("label", .optional(listed?.row.label)),
                ("token", .optional(listed?.token)),
                ("this_device", .bool(listed?.isThisDevice ?? false)),
                ("old_token", .bool(listed?.isOldToken ?? false)),
            ]))
        } else {
            printRemoval(account, id: id, listed: listed, outcome: outcome)
        }
        return .success
    }

    private func printRemoval(_ account: AccountRecord, id: Int, listed: ListedDevice?, outcome: RemoveOutcome) {
        guard outcome == .removed, let listed else {
            context.console.out("Device \(id) is already gone from \(escaped: account.name) (or belongs to another account); nothing to remove.")
            return
        }
        context.console.out("Removed device \(id) \"\(listed.shownLabel)\" (\(listed.shownToken)) from \(escaped: account.name).")
        if listed.isThisDevice {
            context.console.out(account.state == .active
                ? "It was this device's own row: the next `gitbay-sync run` adds it back unless you pause the account (`gitbay-sync pause \(escaped: account.name)`)."
                : "It was this device's own row; \(escaped: account.name) is \(account.state.rawValue), so it stays removed.")
        } else if listed.isOldToken {
            context.console.out("It was a row of this device's old token, which `gitbay-sync run` removes as well.")
        }
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

    /// The account's whole device list (an unconditional read, so never `304`).
    static func fullList(_ client: GitbayClient) async throws(GitbayError) -> [ServerDevice] {
        switch try await client.listDevices(ifNoneMatch: nil) {
        case .list(let rows, _): rows
        case .notModified: preconditionFailure("an unconditional list answered 304; the client turns that into an error")
        }
    }

    /// Concurrent per-account calls with this command's client settings.
    func fanOut(_ store: StateStore) -> AccountFanOut {
        AccountFanOut(store: store, configuration: context.client, logger: logger)
    }
}
