import GitbayAPI
import GitbayReconcile
import GitbayState
import GitbaySupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One account as `accounts` and `status` show it.
struct AccountRow {
    let account: AccountRecord
    let status: AccountStatusRecord
    let deviceID: Int?
    /// The other names of the account's server, found to be the same server.
    var sameServerAs: [InstanceURL] = []
    /// What is known of its API token: its name and expiry (never the token).
    var token: APITokenDetails = .unknown
    /// This install's marker: a token named otherwise was named by the user.
    var installMarker = ""

    var json: JSONValue {
        .object([
            ("account", .string(account.name)),
            ("instance", .string(account.instance.description)),
            ("username", .string(account.username)),
            ("state", .string(account.state.rawValue)),
            ("condition", .string(status.condition.rawValue)),
            ("device_id", .optional(deviceID)),
            ("detail", .optional(status.detail)),
            ("signed_in_at", .optional(account.signedInAt)),
            ("last_attempt_at", .optional(status.lastAttemptAt)),
            ("last_success_at", .optional(status.lastSuccessAt)),
            ("last_error", .optional(status.lastError)),
            ("next_retry_at", .optional(status.nextRetryAt)),
            ("failures", .int(status.failures)),
            ("next_retry_reason", .optional(status.nextRetryAt == nil ? nil : status.nextRetryReason?.rawValue)),
            ("same_server_as", .array(sameServerAs.map { .string($0.description) })),
            ("token_name", .optional(token.name)),
            ("token_expires_at", .optional(token.expiresAt)),
            ("unchecked", .optional(status.unchecked?.reason.rawValue)),
            ("unchecked_since", .optional(status.unchecked?.since)),
            ("push_off", .bool(account.pushOff)),
        ])
    }

    /// The account's line: its name padded to `nameWidth` (the longest of the rows shown), its
    /// condition in `style`'s colour.
    func text(nameWidth: Int = 0, style: TextStyle = .plain) -> String {
        let name = TerminalText.escaped(account.name)
        let padded = name + String(repeating: " ", count: max(0, nameWidth - name.count))
        if account.state == .removing, status.condition == .authFailed {
            return "\(padded)  \(style.condition(.authFailed, "removing")): \(escaped: SkipReasonText.refusedRemoval(account))"
        }
        if account.state == .removing {
            // A signed-out account: say plainly whether its rows may still be on its server.
            let what = status.detail.map { "\(escaped: $0)" } ?? "this device is not deregistered yet"
            return
                "\(padded)  \(style.condition(.removing)): \(what); runs retry the removal (`gitbay-sync status` shows the last error and when), `\(ShellWords.gitbaySync("remove-account", name, "--force"))` deletes it now"
        }
        var line = "\(padded)  \(style.condition(status.condition))"
        // A paused account's condition is `paused` already: its state is not said twice.
        if account.state != .active, account.state.rawValue != status.condition.rawValue { line += " (\(account.state.rawValue))" }
        if let deviceID { line += ", device \(deviceID)" }
        if let detail = status.detail { line += "; \(escaped: detail)" }
        if status.condition == .shadowed, account.state == .active { line += ", " + OutcomeText.shadowed(account.name) }
        if account.pushOff {
            // Chosen with `push off`: the rows stay, the server sends nothing. Not a failure.
            line += "; push off, by choice (`\(ShellWords.gitbaySync("push", "on", TerminalText.escaped(account.name)))` turns it on)"
        }
        if !sameServerAs.isEmpty { line += " (the same server as \(sameServerAs.map(\.description).joined(separator: ", ")))" }
        return line
    }

    /// Why a run could not check an account, and what lets the next one.
    static func said(_ reason: UncheckedReason) -> String {
        switch reason {
        case .keyringLocked:
            "its API token is in the OS keyring, which is locked; unlock it (log in to the desktop session), and the next run checks it"
        case .keyringUnavailable:
            "its API token is in the OS keyring, which did not answer; `gitbay-sync doctor` says why, and the next run tries again"
        case .heldElsewhere: "another gitbay-sync was reconciling it all through the run; the next run checks it"
        case .keptChanging: "what it should have kept changing while the run was at it; the next run checks it"
        }
    }

    /// The longer form `status` prints: last success, last error, when and why the next
    /// attempt waits, each time told against `now`.
    func details(now: Date) -> [String] {
        let said = { (date: Date) in RelativeTime.said(date, now: now) }
        var lines: [String] = []
        if let unchecked = status.unchecked {
            let runs = unchecked.runs == 1 ? "the last run" : "the last \(unchecked.runs) runs"
            lines.append("    not checked by \(runs) (since \(said(unchecked.since))): \(Self.said(unchecked.reason))")
        }
        if let at = status.lastSuccessAt { lines.append("    last success: \(said(at))") }
        if let error = status.lastError { lines.append("    last error: \(escaped: error)") }
        let expiry = token.expiresAt.map { $0 > now ? "expires \(said($0))" : "expired \(said($0))" }
        if let name = token.name {
            lines.append("    API token: \(escaped: name)" + (expiry.map { ", \($0)" } ?? ""))
        } else if let expiry {
            lines.append("    API token: \(expiry)")
        }
        if let warning = PinnedTokenText.warning(account, token: token, installMarker: installMarker, now: now) {
            lines.append("    warning: \(escaped: warning)")
        }
        if let at = status.nextRetryAt, FailurePolicy.isBeyondAnyWait(at, from: now) {
            lines.append("    next attempt: at the next run: \(Self.beyondAnyWait(at, now: now))")
        } else if let at = status.nextRetryAt {
            let why = status.nextRetryReason.map { ": \($0.explanation)" } ?? ""
            lines.append(
                at > now
                    ? "    next attempt: \(said(at)) at the earliest\(why); `gitbay-sync run --now` tries it now"
                    : "    next attempt: at the next run (its wait ended \(said(at))\(why))")
        }
        if status.condition == .pending { lines.append("    not reconciled yet: run `gitbay-sync run`") }
        if status.condition == .authFailed, account.state == .active {
            lines.append("    to fix: \(escaped: FailureText.signInAgain(account))")
        }
        if account.hasUnusableName {
            lines.append("    to fix: \(FailureText.removeUnusable(account, shown: true))")
        }
        return lines
    }

    /// Why a next attempt recorded for `at` is not waited for (`FailurePolicy.isBeyondAnyWait`):
    /// with `now`, said against it ("due on 2126-01-01"), else with the absolute time.
    static func beyondAnyWait(_ at: Date, now: Date? = nil) -> String {
        guard let now else {
            return "it was recorded for \(Timestamp.format(at)), further ahead than any wait gitbay-sync sets: a wrong clock or a wrong server"
        }
        return "it is due \(RelativeTime.said(at, now: now)), further ahead than any wait gitbay-sync sets: a wrong clock or a wrong server"
    }
}

extension AccountRow {
    /// The width of the name column: the longest name as printed.
    static func nameWidth(_ rows: [AccountRow]) -> Int {
        rows.map { TerminalText.escaped($0.account.name).count }.max() ?? 0
    }

    /// A row per account, in sign-in order.
    static func rows(_ facts: AccountFacts) -> [AccountRow] {
        let current = facts.device.token.map(TokenIdentity.init(of:))
        var rows: [AccountRow] = []
        for account in facts.accounts {
            var status = facts.statuses[account.id] ?? AccountStatusRecord()
            // Registered means a recorded row holds the current token: after a new token the
            // last run's word no longer holds until a run registers it.
            let held = RowOwnership.heldRecord(in: facts.registrations[account.id] ?? [], current: current)
            if status.condition == .registered, held == nil {
                status.condition = .pending
                status.detail = "the device token changed since the last run; `gitbay-sync run` registers it"
            }
            rows.append(
                AccountRow(
                    account: account, status: status, deviceID: status.condition == .registered ? held?.deviceID : nil,
                    sameServerAs: facts.names.names(of: account.instance).filter { $0 != account.instance },
                    token: facts.tokenDetails[account.id] ?? .unknown, installMarker: facts.device.installMarker))
        }
        return rows
    }
}
