import GitbaySupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension StateStore {
    /// Records `run` in the history, in a transaction of its own: for a run that has none to
    /// write it in (`saveSteadyVerdicts` takes it otherwise).
    package func recordRun(_ run: RunHistoryRecord) throws {
        try write { database in try Self.insertRun(run, database) }
    }

    /// The newest `limit` runs, newest first.
    package func runHistory(limit: Int = RunHistoryRecord.kept) throws -> [RunHistoryRecord] {
        try access { database in
            try database.rows(
                """
                SELECT trigger, started_at, pid, finished_at, result, accounts, added, removed, failed_accounts, unchecked_accounts
                FROM run_history ORDER BY started_at DESC, id DESC LIMIT ?
                """,
                .int(limit), map: RunHistoryRecord.init(row:))
        }
    }

    /// Writes `run` (replacing what the same run wrote before) and deletes the runs past the
    /// newest `RunHistoryRecord.kept`, inside the caller's transaction.
    static func insertRun(_ run: RunHistoryRecord, _ database: Database) throws(SQLiteError) {
        try database.run(
            """
            INSERT INTO run_history
                (started_at, pid, finished_at, trigger, result, accounts, added, removed, failed_accounts, unchecked_accounts)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (started_at, pid) DO UPDATE SET
                finished_at = excluded.finished_at, trigger = excluded.trigger, result = excluded.result,
                accounts = excluded.accounts, added = excluded.added, removed = excluded.removed,
                failed_accounts = excluded.failed_accounts, unchecked_accounts = excluded.unchecked_accounts
            """,
            .text(Timestamp.format(run.start.startedAt)), .integer(Int64(run.start.pid)), .text(Timestamp.format(run.finishedAt)),
            .text(run.start.trigger.rawValue), .text(run.result.rawValue), .int(run.accounts), .int(run.added), .int(run.removed),
            .text(run.failedAccounts.joined(separator: "\n")), .text(run.uncheckedAccounts.joined(separator: "\n"))
        )
        try database.run(
            """
            DELETE FROM run_history WHERE id NOT IN (SELECT id FROM run_history ORDER BY started_at DESC, id DESC LIMIT ?)
            """,
            .int(RunHistoryRecord.kept))
    }
}
