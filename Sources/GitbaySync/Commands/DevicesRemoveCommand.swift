import GitbayAPI
import GitbayReconcile
import GitbayState
import GitbaySupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `devices remove <account> <id> [--yes]`, also called `devices rm`.
struct DevicesRemoveCommand: CommandDefinition {
    static let id = CommandSpec.Argument(name: "id", optional: false, help: "The server's device id, from `gitbay-sync devices`.")
    static let yes = CommandSpec.Option(name: "--yes", valueName: nil, help: "Do not ask for confirmation (required when not on a terminal).")

    static let sendsRequests = true

    static let spec = CommandSpec(
        words: ["devices", "remove"], aliases: ["rm"], group: .lookingAround, arguments: [.account, id], options: [yes],
        summary: "Remove one device row from an account's server.",
        discussion: """
            For an old phone, say. Removing this device's own row lasts until the next run unless the
            account is paused. `devices rm` is another name for this command.
            """,
        examples: [
            .init("Remove an old phone's row (its id from `gitbay-sync devices`), asking first", ["devices", "remove", "alice@gitbay.org", "42"]),
            .init("The same in a script, where nothing can ask", ["devices", "rm", "--yes", "alice@gitbay.org", "42"]),
        ]
    )

    let account: String
    let id: Int
    let yes: Bool

    init(account: String, id: Int, yes: Bool = false) {
        self.account = account
        self.id = id
        self.yes = yes
    }

    init(_ input: CommandInput) throws(UsageError) {
        account = try input.required(.account)
        let text = try input.required(Self.id)
        guard let id = Int(text), id > 0 else {
            throw input.error("'\(text)' is not a device id; give the number `gitbay-sync devices` shows")
        }
        self.id = id
        yes = input.isSet(Self.yes)
    }

    func run(_ runner: CommandRunner) async throws -> ExitCode {
        try await runner.removeListedDevice(account, id: id, yes: yes)
    }
}

extension CommandRunner {
    /// `devices remove <account> <id> [--yes]`: removes one row of the account's server list,
    /// after confirmation on a terminal.
    fileprivate func removeListedDevice(_ name: String, id: Int, yes: Bool) async throws -> ExitCode {
        guard yes || context.console.inputIsTerminal else {
            throw UsageError(
                "not removing device \(id) without --yes: there is no terminal to ask for confirmation on", command: ["devices", "remove"])
        }
        let store = try await openStore()
        let account = try await account(named: name, in: store)
        let client = try await GitbayClient.forAccount(account, in: tokens(store), configuration: context.client, logger: logger)
        let rows = try await Self.fullList(client)
        let ownership = RowOwnership(device: try await store.device(), records: try await store.registrations(ofAccount: account.id), rows: rows)
        let listed = rows.first { $0.id == id }.map { ListedDevice(row: $0, kind: ownership.kind(of: $0)) }

        var outcome = RemoveOutcome.alreadyGone
        if let listed {
            if !yes { try confirmRemoval(listed, from: account) }
            // A client of its own: the time a person takes to answer is not the server's, and
            // must not count against the list's client's deadline.
            let remover = try await GitbayClient.forAccount(account, in: tokens(store), configuration: context.client, logger: logger)
            outcome = try await remover.removeDevice(id: id)
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

        show(DeviceRemovalOutput(account: account, id: id, listed: listed, outcome: outcome))
        return .success
    }

    /// Asks on the terminal before a row is removed; throws when the answer is not yes.
    private func confirmRemoval(_ listed: ListedDevice, from account: AccountRecord) throws {
        let note =
            switch listed.kind {
            case .current: " It is this device's own row."
            case .oldToken: " It is a row of this device's old token."
            case .unsettled: " It is a row of this device's, of the current token or an old one."
            case .notOurs: ""
            }
        let question = "Remove device \(listed.row.id) \"\(listed.shownLabel)\" (\(listed.shownToken)) from \(escaped: account.name)?\(note)"
        guard context.console.confirm(question) else {
            throw CommandFailure("not confirmed; nothing removed", exitCode: .partialFailure)
        }
    }
}

/// What `devices remove` prints.
struct DeviceRemovalOutput: CommandOutput {
    let account: AccountRecord
    let id: Int
    /// The row as the server listed it; nil when it was not there.
    let listed: ListedDevice?
    let outcome: RemoveOutcome

    var json: JSONValue {
        .object([
            ("account", .string(account.name)),
            ("id", .int(id)),
            ("result", .string(outcome == .removed ? "removed" : "already-gone")),
            ("label", .optional(listed?.row.label)),
            ("token", .optional(listed?.token)),
            ("this_device", .bool(listed?.isThisDevice ?? false)),
            ("old_token", .bool(listed?.isOldToken ?? false)),
        ])
    }

    var text: [String] {
        guard outcome == .removed, let listed else {
            return ["Device \(id) is already gone from \(escaped: account.name) (or belongs to another account); nothing to remove."]
        }
        let removed = "Removed device \(id) \"\(listed.shownLabel)\" (\(listed.shownToken)) from \(escaped: account.name)."
        if listed.isThisDevice {
            return [
                removed,
                account.state == .active
                    ? "It was this device's own row: the next `gitbay-sync run` adds it back unless you pause the account (`\(escaped: ShellWords.gitbaySync("pause", account.name))`)."
                    : "It was this device's own row; \(escaped: account.name) is \(account.state.rawValue), so it stays removed.",
            ]
        }
        if listed.isOldToken {
            return [removed, "It was a row of this device's old token, which `gitbay-sync run` removes as well."]
        }
        return [removed]
    }
}
