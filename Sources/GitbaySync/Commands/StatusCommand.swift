import GitbayReconcile
import GitbayState
import GitbaySupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `status [--history]`.
struct StatusCommand: CommandDefinition {
    static let history = CommandSpec.Option(
        name: "--history", valueName: nil,
        help:
            "Show the last runs instead (the newest \(RunHistoryRecord.kept) are kept): when, how long, what started it, how it went and what it changed."
    )

    static let spec = CommandSpec(
        words: ["status"], group: .lookingAround, arguments: [], options: [history],
        summary: "Show each account's condition and this device.",
        discussion:
            "Per account: condition, server device id, last success, last error and next retry. Exits 1 when an account waits for you (auth-failed, denied, push-disabled), as gh auth status does, so that a script or a login shell can tell. Times are said from now (`12 min ago`); `--json` gives them in RFC 3339. With --history, the last runs, newest first: started by `run`, `run --every`, the service (at login, or started by hand) or its systemd timer.",
        examples: [
            .init("Each account's condition, last success, last error and next attempt", ["status"]),
            .init("The same as JSON, for a script", ["status", "--json"]),
            .init("The last runs: when, how long, what started them and how they went", ["status", "--history"]),
            .init("The accounts the last run failed", ["status", "--history", "--json"], after: "| jq -r '.runs[0].failed_accounts[]'"),
        ]
    )

    let history: Bool

    init(history: Bool = false) {
        self.history = history
    }

    init(_ input: CommandInput) throws(UsageError) {
        history = input.isSet(Self.history)
    }

    func run(_ runner: CommandRunner) async throws -> ExitCode {
        history ? try await runner.runHistory() : try await runner.status()
    }
}

extension CommandRunner {
    /// `status`.
    fileprivate func status() async throws -> ExitCode {
        let store = try await openExistingStore()
        let facts = try await store.accountFacts()
        var output = StatusOutput(
            databasePath: location.databasePath, device: facts.device, rows: AccountRow.rows(facts), now: context.now(), names: facts.names)
        output.style = textStyle
        output.width = textWidth
        show(output)
        // An account the latest run could not check is not known to be right: not a success.
        let unsure = output.rows.contains { $0.status.unchecked != nil || $0.account.hasUnusableName }
        return output.waitingForYou.isEmpty && !unsure ? .success : .partialFailure
    }

    /// `status --history`.
    fileprivate func runHistory() async throws -> ExitCode {
        let store = try await openExistingStore()
        show(RunHistoryOutput(runs: try await store.runHistory(), now: context.now(), style: textStyle))
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
    var style: TextStyle = .plain
    /// The terminal's width, to wrap to (nil: whole lines).
    var width: Int? = nil

    var json: JSONValue {
        .object([("database", .string(databasePath)), ("device", device.json), ("accounts", .array(rows.map(\.json)))])
    }

    /// The accounts in a condition that waits for a person, not for time.
    var waitingForYou: [AccountRow] {
        rows.filter { $0.status.condition.needsAttention }
    }

    var text: [String] {
        var lines = [
            "database: \(databasePath)",
            "device: \(escaped: device.label), token "
                + (device.token.map { "\($0.prefix())…" } ?? "not set (set one with `gitbay-sync device set-token`)"),
        ]
        if device.awaitsTokenAfterMove, let movedAt = device.movedAt {
            lines.append(
                "install: new on this machine (moved here \(RelativeTime.said(movedAt, now: now))): the database came from another machine, whose rows are left alone; set this machine's device token with `gitbay-sync device set-token`"
            )
        }
        lines += names.proofs.map { "servers: \(OneServerText.sentence($0))" }
        if rows.isEmpty {
            lines.append("accounts: none (sign in with `gitbay-sync login <instance-url>`)")
        }
        let nameWidth = AccountRow.nameWidth(rows)
        for row in rows {
            lines.append(row.text(nameWidth: nameWidth, style: style))
            lines += row.details(now: now)
        }
        if !waitingForYou.isEmpty {
            let names = waitingForYou.map { "\(escaped: $0.account.name) (\($0.status.condition.rawValue))" }
            lines.append(
                "waiting for you: \(names.joined(separator: ", ")); no run gets past this on its own, the lines above say what to do")
        }
        return TextLayout.fitted(lines, width: width)
    }
}
