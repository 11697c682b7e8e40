import GitbayReconcile
import GitbayState
import GitbaySupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The command line's words for why a run left an account alone: the core says why as a
/// value (`RunSchedule.SkipReason`), the agent says it with the commands that end it.
enum SkipReasonText {
    /// `outcome` with its reason (and, for a refused removal, its error) in words; what the
    /// command line put there itself is kept; times are said against `now`.
    static func worded(_ outcome: SaidOutcome, now: Date) -> SaidOutcome {
        var outcome = outcome
        guard let skip = outcome.skipReason, outcome.reason == nil else { return outcome }
        let (instance, ssh) = (outcome.instance.description, outcome.sshDestination)
        switch skip {
        case .tokenRefused:
            outcome.reason = "the API token was refused; \(FailureText.signInAgain(outcome.instance, account: outcome.account, ssh: ssh))"
        case .removalTokenRefused:
            let reason = refusedRemoval(outcome.account, instance: instance)
            if outcome.action == .skipped { outcome.reason = reason }
            if outcome.error == nil || outcome.action != .skipped { outcome.error = "\(outcome.account): \(reason)" }
        case .backingOff:
            outcome.reason = waiting(until: outcome.nextRetryAt, because: outcome.nextRetryReason, now: now)
        case .heldElsewhere(let pid, let since):
            outcome.reason = "another gitbay-sync (pid \(pid)) is reconciling it, since \(RelativeTime.said(since, now: now)); it picks up any change"
        case .signedOutDuringRun:
            outcome.reason = "signed out, or its token refused, during the run"
        case .keptChanging:
            outcome.reason = "what it should have kept changing during the run; the next `gitbay-sync run` brings it in line"
        case .signedInAgain:
            outcome.reason = "signed in again while its removal finished, so it stays signed in; the next `gitbay-sync run` registers it"
        case .keyringUnavailable(let reason):
            outcome.reason =
                "waiting for the OS keyring, which holds its API token: \(escaped: reason.description); \(KeyringText.fix(reason)), and the next `gitbay-sync run` tries again"
        }
        return outcome
    }

    /// Why the removal of an account whose API token was refused cannot go on, and the ways out.
    static func refusedRemoval(_ name: String, instance: String) -> String {
        "its removal cannot go on: the API token was refused, so this device's rows on \(instance) cannot be removed with it, and it is not sent again. Sign in again with `\(ShellWords.gitbaySync("login", instance))` and remove it again, or `\(ShellWords.gitbaySync("remove-account", name, "--force"))` deletes it now (this device's rows stay on the server and may keep pushing here)"
    }

    static func refusedRemoval(_ account: AccountRecord) -> String {
        refusedRemoval(account.name, instance: account.instance.description)
    }

    /// Why an account is left alone this run: until when, why, and how to try it anyway.
    static func waiting(until: Date?, because reason: RetryReason?, now: Date) -> String {
        let until = until.map { " (next attempt \(RelativeTime.said($0, now: now)))" } ?? ""
        let why = reason.map { ": \($0.explanation)" } ?? ""
        return "waiting out a backoff\(until)\(why); `gitbay-sync run --now` tries it now"
    }
}
