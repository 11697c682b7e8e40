#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One run as `status --history` shows it: when, what started it, how it went and what it
/// changed. The database keeps the newest `kept`.
package struct RunHistoryRecord: Sendable, Equatable {
    /// What started a run.
    package enum Trigger: String, Sendable, CaseIterable {
        /// `run`, typed.
        case run
        /// A cycle of `run --every`.
        case every
        /// `run --unattended`: the installed service at login, or started by hand.
        case service
        /// `run --unattended` started by a systemd timer (which sets `TRIGGER_UNIT`).
        case timer
    }

    /// What names a run while it writes its row: when it started and in which process.
    package struct Start: Sendable, Equatable {
        package let trigger: Trigger
        package let startedAt: Date
        package let pid: Int32

        package init(trigger: Trigger, startedAt: Date, pid: Int32) {
            self.trigger = trigger
            self.startedAt = startedAt
            self.pid = pid
        }
    }

    package typealias Result = UnattendedRunRecord.Result

    /// How many runs the database keeps: a run deletes the rows past these, oldest first.
    package static let kept = 50

    package let start: Start
    package let finishedAt: Date
    package let result: Result
    /// How many accounts the run looked at.
    package let accounts: Int
    /// Accounts whose row was added (first, again, or for a new token).
    package let added: Int
    /// Accounts whose rows were removed.
    package let removed: Int
    /// The accounts that failed, in sign-in order.
    package let failedAccounts: [String]
    /// The accounts it could not check, in sign-in order.
    package var uncheckedAccounts: [String] = []

    package init(
        start: Start, finishedAt: Date, result: Result, accounts: Int, added: Int, removed: Int, failedAccounts: [String],
        uncheckedAccounts: [String] = []
    ) {
        self.uncheckedAccounts = uncheckedAccounts
        self.start = start
        self.finishedAt = finishedAt
        self.result = result
        self.accounts = accounts
        self.added = added
        self.removed = removed
        self.failedAccounts = failedAccounts
    }

    /// Whether `other` tells the same of the run, its finish time aside: a row written
    /// earlier in the run that already says it all is not written again.
    package func saysTheSame(as other: RunHistoryRecord) -> Bool {
        start == other.start && result == other.result && accounts == other.accounts && added == other.added
            && removed == other.removed && failedAccounts == other.failedAccounts && uncheckedAccounts == other.uncheckedAccounts
    }
}

extension RunHistoryRecord {
    init(row: Row) throws(SQLiteError) {
        let failed = try row.text("failed_accounts")
        let unchecked = try row.text("unchecked_accounts")
        self.init(
            start: Start(
                trigger: try row.value("trigger", as: Trigger.self), startedAt: try row.date("started_at"),
                pid: Int32(truncatingIfNeeded: try row.int64("pid"))),
            finishedAt: try row.date("finished_at"), result: Result(rawValue: try row.text("result")) ?? .failed,
            accounts: try row.int("accounts"), added: try row.int("added"), removed: try row.int("removed"),
            failedAccounts: failed.isEmpty ? [] : failed.split(separator: "\n").map(String.init),
            uncheckedAccounts: unchecked.isEmpty ? [] : unchecked.split(separator: "\n").map(String.init))
    }
}
