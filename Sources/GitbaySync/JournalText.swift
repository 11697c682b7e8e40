import GitbayReconcile
import GitbaySupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Lines that read well in the systemd journal: one event a line, no timestamps (the journal
/// adds its own), the account first. When the stream they go to is the journal's (its
/// `device:inode` is `$JOURNAL_STREAM`, as systemd sets it for a service) each line starts with
/// its syslog priority, `<3>` to `<6>`, which the journal reads and strips. The stream itself
/// is compared, not just the variable's presence: a shell started by a service (a terminal
/// emulator run as a user unit) inherits the variable but writes to a terminal.
struct JournalText: Sendable {
    enum Priority: Int, Sendable {
        case error = 3, warning = 4, notice = 5, info = 6
    }

    /// Whether lines carry a priority prefix.
    let prefixed: Bool

    init(prefixed: Bool) {
        self.prefixed = prefixed
    }

    /// For the stream on `descriptor` (1 or 2), whose `device:inode` `identity` tells.
    init(environment: [String: String], descriptor: Int32, identity: (Int32) -> String?) {
        let stream = environment["JOURNAL_STREAM"] ?? ""
        prefixed = !stream.isEmpty && identity(descriptor) == stream
    }

    /// The `device:inode` of an open descriptor, in decimal, as systemd writes `$JOURNAL_STREAM`;
    /// nil when it is not open.
    static func identity(of descriptor: Int32) -> String? {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { return nil }
        return "\(UInt64(info.st_dev)):\(UInt64(info.st_ino))"
    }

    func line(_ priority: Priority, _ text: String) -> String {
        prefixed ? "<\(priority.rawValue)>\(text)" : text
    }

    /// The priority of an account's outcome: a failure is a warning (the next run retries it),
    /// a change a notice, anything else (unchanged, shadowed, waiting) info.
    static func priority(of outcome: SaidOutcome) -> Priority {
        if outcome.isFailure { return .warning }
        switch outcome.action {
        case .unchanged, .shadowed, .skipped: return .info
        case .added, .reAdded, .rotated, .adopted, .removed, .failed: return .notice
        }
    }

    /// The line for one account's outcome in a cycle: one for a change or a failure; for an
    /// account unchanged, shadowed or waiting out a backoff, one only when `verbose`, which
    /// also adds the requests and writes it took. The next try is said against `now`.
    func outcomeLine(_ outcome: SaidOutcome, nextRetry: Date?, now: Date, verbose: Bool) -> String? {
        let cost =
            verbose
            ? " [\(outcome.requests) request\(outcome.requests == 1 ? "" : "s"), \(outcome.writes) write\(outcome.writes == 1 ? "" : "s")]" : ""
        let retry = nextRetry.map { " (next try \(RelativeTime.said($0, now: now)))" } ?? ""
        if outcome.stopped {
            // Cut short by a stop request: not the account's failure, and nothing was recorded.
            return line(
                .info,
                "\(escaped: outcome.account): stopped: the stop cut its requests short; nothing of it was recorded, and the next run reconciles it\(cost)"
            )
        }
        // A failure in this cycle, or a token still refused, is worth a line every cycle; an
        // account waiting out a backoff is not (its failure had its line).
        if outcome.action == .failed || (outcome.action == .skipped && outcome.condition == .authFailed) {
            // Errors name their account already; the line names it once, first.
            var reason = outcome.error ?? outcome.condition.rawValue
            if reason.hasPrefix(outcome.account + ": ") { reason.removeFirst(outcome.account.count + 2) }
            return line(
                .warning,
                "\(escaped: outcome.account): \(outcome.action.rawValue) (\(outcome.condition.rawValue)): \(escaped: reason)\(retry)\(cost)")
        }
        switch outcome.action {
        case .unchanged, .shadowed:
            guard verbose else { return nil }
            let holder = outcome.shadowedBy.map { " by \(escaped: $0)" } ?? ""
            return line(.info, "\(escaped: outcome.account): \(outcome.action.rawValue)\(holder) (\(outcome.condition.rawValue))\(cost)")
        case .skipped:
            guard verbose else { return nil }
            return line(.info, "\(escaped: outcome.account): skipped, waiting out a backoff (\(outcome.condition.rawValue))\(retry)")
        case .added, .reAdded, .rotated, .adopted, .removed, .failed:
            let device = outcome.deviceID.map { ", device \($0)" } ?? ""
            return line(.notice, "\(escaped: outcome.account): \(outcome.action.rawValue)\(device) (\(outcome.condition.rawValue))\(cost)")
        }
    }

    /// The `-v` line closing a cycle.
    static func summary(_ number: Int, _ outcomes: [SaidOutcome], next: Duration?) -> String {
        let failed = outcomes.filter { $0.action == .failed && !$0.stopped }.count
        // Closures, not key paths: those of SaidOutcome's dynamic members are applied at run time.
        let stopped = outcomes.filter { $0.stopped }.count
        let waiting = outcomes.filter { $0.action == .skipped && $0.isFailure }.count
        let quiet: Set<AccountOutcome.Action> = [.unchanged, .shadowed, .skipped]
        let changed = outcomes.filter { !$0.isFailure && !quiet.contains($0.action) }.count
        let requests = outcomes.reduce(0) { $0 + $1.requests }
        let then = next.map { "; next in \(IntervalParser.format(.seconds($0.components.seconds)))" } ?? "; no next cycle"
        let stillFailed = (waiting == 0 ? "" : ", \(waiting) still failed (skipped)") + (stopped == 0 ? "" : ", \(stopped) stopped")
        return
            "cycle \(number): \(outcomes.count) account\(outcomes.count == 1 ? "" : "s"), \(changed) changed, \(failed) failed\(stillFailed), \(requests) request\(requests == 1 ? "" : "s")\(then)"
    }
}
