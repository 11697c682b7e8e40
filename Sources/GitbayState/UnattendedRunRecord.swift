#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The latest run nobody typed: the installed service's `run --unattended`, or a cycle of
/// `run --every`.
package struct UnattendedRunRecord: Sendable, Equatable {
    package enum Trigger: String, Sendable, CaseIterable {
        /// `run --unattended`, as the units `service install` writes call it.
        case service
        /// A cycle of `run --every`.
        case every
    }

    package enum Result: String, Sendable {
        /// No account failed (some may wait out a backoff).
        case ok
        /// One or more accounts failed.
        case failed
        /// A signal stopped the run before it finished.
        case interrupted
        /// No account failed, but one or more could not be checked (`uncheckedAccounts`).
        case unchecked
    }

    package let trigger: Trigger
    package let startedAt: Date
    package let finishedAt: Date
    package let result: Result
    /// How many accounts the run looked at.
    package let accounts: Int
    /// The accounts that failed, in sign-in order.
    package let failedAccounts: [String]
    /// How many accounts were left waiting out a backoff.
    package let waiting: Int
    /// The period of `run --every`; nil for the service.
    package let period: Duration?
    package let pid: Int32
    /// The accounts it could not check, in sign-in order.
    package var uncheckedAccounts: [String] = []

    package init(
        trigger: Trigger, startedAt: Date, finishedAt: Date, result: Result, accounts: Int, failedAccounts: [String],
        waiting: Int, period: Duration?, pid: Int32, uncheckedAccounts: [String] = []
    ) {
        self.uncheckedAccounts = uncheckedAccounts
        self.trigger = trigger
        self.startedAt = startedAt
        self.finishedAt = finishedAt
        self.result = result
        self.accounts = accounts
        self.failedAccounts = failedAccounts
        self.waiting = waiting
        self.period = period
        self.pid = pid
    }
}
