import GitbayState
import GitbaySupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What `status --history` prints: the last runs, newest first.
struct RunHistoryOutput: CommandOutput {
    let runs: [RunHistoryRecord]
    /// The time the start times are told against.
    let now: Date
    var style: TextStyle = .plain

    var json: JSONValue {
        .object([
            (
                "runs",
                .array(
                    runs.map { run in
                        .object([
                            ("started_at", .string(Timestamp.format(run.start.startedAt))),
                            ("finished_at", .string(Timestamp.format(run.finishedAt))),
                            ("trigger", .string(run.start.trigger.rawValue)),
                            ("result", .string(run.result.rawValue)),
                            ("accounts", .int(run.accounts)),
                            ("added", .int(run.added)),
                            ("removed", .int(run.removed)),
                            ("failed", .int(run.failedAccounts.count)),
                            ("failed_accounts", .array(run.failedAccounts.map { .string($0) })),
                            ("unchecked", .int(run.uncheckedAccounts.count)),
                            ("unchecked_accounts", .array(run.uncheckedAccounts.map { .string($0) })),
                            ("pid", .int(Int(run.start.pid))),
                        ])
                    })
            )
        ])
    }

    var text: [String] {
        guard !runs.isEmpty else { return ["No runs recorded yet: `gitbay-sync run` records one."] }
        let header = ["STARTED", "TOOK", "BY", "RESULT", "ACCOUNTS", "ADDED", "REMOVED", "FAILED", "UNCHECKED"]
        let rows = runs.map { run -> [String] in
            [
                RelativeTime.said(run.start.startedAt, now: now), RelativeTime.length(run.finishedAt.timeIntervalSince(run.start.startedAt)),
                Self.trigger(run.start.trigger), run.result.rawValue, "\(run.accounts)", "\(run.added)", "\(run.removed)",
                Self.named(run.failedAccounts), Self.named(run.uncheckedAccounts),
            ]
        }
        let results = [nil] + runs.map(\.result)
        return Self.aligned([header] + rows).enumerated().map { index, cells in
            var cells = cells
            cells[3] = style.paint(cells[3], results[index].map(Self.colour))
            return cells.joined(separator: "  ").trimmingWhitespace()
        }
    }

    /// Each cell but the last of its row padded to the widest of its column, measured before
    /// any colour is added.
    static func aligned(_ rows: [[String]]) -> [[String]] {
        let count = rows.map(\.count).max() ?? 0
        let widths = (0..<count).map { column in rows.map { column < $0.count ? $0[column].count : 0 }.max() ?? 0 }
        return rows.map { row in
            row.enumerated().map { column, cell in
                column == row.count - 1 ? cell : cell + String(repeating: " ", count: widths[column] - cell.count)
            }
        }
    }

    /// How many accounts, and which.
    private static func named(_ accounts: [String]) -> String {
        accounts.isEmpty ? "0" : "\(accounts.count): \(accounts.map { TerminalText.escaped($0) }.joined(separator: ", "))"
    }

    /// What started the run, in the words of the command line.
    static func trigger(_ trigger: RunHistoryRecord.Trigger) -> String {
        switch trigger {
        case .run: "run"
        case .every: "run --every"
        case .service: "service"
        case .timer: "timer"
        }
    }

    private static func colour(_ result: RunHistoryRecord.Result) -> TextStyle.Colour {
        switch result {
        case .ok: .green
        case .failed: .red
        case .interrupted, .unchecked: .yellow
        }
    }
}
