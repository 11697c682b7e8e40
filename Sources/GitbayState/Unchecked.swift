#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Why a run could not check an account: nothing was asked of its server.
package enum UncheckedReason: String, Sendable, Equatable, CaseIterable {
    /// Its API token is in the OS keyring, which is locked.
    case keyringLocked = "keyring-locked"
    /// Its API token is in the OS keyring, which is not there or did not answer.
    case keyringUnavailable = "keyring-unavailable"
    /// Another live gitbay-sync held the account all through the run.
    case heldElsewhere = "held-elsewhere"
    /// What it should have kept changing through every pass of the run.
    case keptChanging = "kept-changing"
}

/// That the latest runs could not check an account: why, since when, and in how many runs
/// in a row for that reason.
package struct Unchecked: Sendable, Equatable {
    package let reason: UncheckedReason
    package let since: Date
    package let runs: Int

    package init(reason: UncheckedReason, since: Date, runs: Int) {
        self.reason = reason
        self.since = since
        self.runs = runs
    }
}
