import GitbayReconcile
import GitbayState
import GitbaySupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `status`.
struct StatusCommand: PlainCommand {
    static let spec = CommandSpec(
        words: ["status"], group: .lookingAround, arguments: [], options: [],
        summary: "Show each account's condition and this device.",
        discussion: "Per account: condition, server device id, last success, last error and next retry.",
        examples: [
            .init("Each account's condition, last success, last error and next attempt", ["status"]),
            .init("The same as JSON, for a script", ["status", "--json"]),
        ]
    )

    func run(_ runner: CommandRunner) async throws -> ExitCode {
        try await runner.status()
    }
}

extension CommandRunner {
    /// `status`.
    fileprivate func status() async throws -> ExitCode {
        let store = try await openExistingStore()
        let facts = try await store.accountFacts()
        show(
            StatusOutput(
                databasePath: location.databasePath, device: facts.device, rows: AccountRow.rows(facts), now: context.now(),
                names: facts.names))
        return .success
    }
}

/// What `status` prints.
struct StatusOutput: CommandOutput {
    let databasePath: String
    let device: DeviceRecord
    let rows: [AccountRow]
    /// The time the retry times are told against.
    let now: Date
    /// Which instance URLs were found to name one server.
    var names: ServerNames = .none

    var json: JSONValue {
        .object([("database", .string(databasePath)), ("device", device.json), ("accounts", .array(rows.map(\.json)))])
    }

    var text: [String] {
        var lines = [
            "database: \(databasePath)",
            "device: \(escaped: device.label), token "
                + (device.token.map { "\($0.prefix())…" } ?? "not set (set one with `gitbay-sync device set-token`)"),
        ]
        if device.awaitsTokenAfterMove, let movedAt = device.movedAt {
            lines.append(
                "install: new on this machine since \(Timestamp.format(movedAt)): the database came from another machine, whose rows are left alone; set this machine's device token with `gitbay-sync device set-token`"
            )
        }
        lines += names.proofs.map { "servers: \(OneServerText.sentence($0))" }
        if rows.isEmpty {
            lines.append("accounts: none (sign in with `gitbay-sync login <instance-url>`)")
        }
        for row in rows {
            lines.append(row.text)
            lines += row.details(now: now)
        }
        return lines
    }
}
