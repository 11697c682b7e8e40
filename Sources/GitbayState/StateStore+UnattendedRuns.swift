import GitbaySupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension StateStore {
    /// Keeps `run` as the latest unattended run of its trigger, replacing the one before.
    package func recordUnattendedRun(_ run: UnattendedRunRecord) throws {
        try write { database in
            try database.run(
                """
                INSERT OR REPLACE INTO unattended_runs
                    (trigger, started_at, finished_at, result, accounts, failed_accounts, waiting, period_seconds, pid, unchecked_accounts)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
                .text(run.trigger.rawValue), .text(Timestamp.format(run.startedAt)), .text(Timestamp.format(run.finishedAt)),
                .text(run.result.rawValue), .int(run.accounts), .text(run.failedAccounts.joined(separator: "\n")),
                .int(run.waiting), .optionalInteger(run.period.map(\.components.seconds)), .integer(Int64(run.pid)),
                .text(run.uncheckedAccounts.joined(separator: "\n"))
            )
        }
    }

    /// The latest unattended run of `trigger`, if one was recorded.
    package func lastUnattendedRun(_ trigger: UnattendedRunRecord.Trigger) throws -> UnattendedRunRecord? {
        try access { database in
            try database.row(
                """
                SELECT started_at, finished_at, result, accounts, failed_accounts, waiting, period_seconds, pid, trigger, unchecked_accounts
                FROM unattended_runs WHERE trigger = ?
                """,
                .text(trigger.rawValue), map: UnattendedRunRecord.init(row:))
        }
    }
}
