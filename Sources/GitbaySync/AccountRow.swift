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
        ])
    }

    var text: String {
        if account.state == .removing, status.condition == .authFailed {
            return "\(escaped: account.name)  removing: \(escaped: SkipReasonText.refusedRemoval(account))"
        }
        if account.state == .removing {
            // A signed-out account: say plainly whether its rows may still be on its server.
            let what = status.detail.map { "\(escaped: $0)" } ?? "this device is not deregistered yet"
            return
                "\(escaped: account.name)  removing: \(what); runs retry the removal (`gitbay-sync status` shows the last error and when), `gitbay-sync remove-account \(escaped: account.name) --force` deletes it now"
        }
        var line = "\(escaped: account.name)  \(status.condition.rawValue)"
        if account.state != .active { line += " (\(account.state.rawValue))" }
        if let deviceID { line += ", device \(deviceID)" }
        if let detail = status.detail { line += "; \(escaped: detail)" }
        if !sameServerAs.isEmpty { line += " (the same server as \(sameServerAs.map(\.description).joined(separator: ", ")))" }
        return line
    }

    /// The longer form `status` prints: last success, last error, when and why the next
    /// attempt waits.
    func details(now: Date) -> [String] {
        var lines: [String] = []
        if let at = status.lastSuccessAt { lines.append("    last success: \(Timestamp.format(at))") }
        if let error = status.lastError { lines.append("    last error: \(escaped: error)") }
        if let name = token.name {
            lines.append("    API token: \(escaped: name)" + (token.expiresAt.map { ", works until \(Timestamp.format($0))" } ?? ""))
        } else if let expiresAt = token.expiresAt {
            lines.append("    API token: works until \(Timestamp.format(expiresAt))")
        }
        if let at = status.nextRetryAt, FailurePolicy.isBeyondAnyWait(at, from: now) {
            lines.append("    next attempt: at the next run: \(Self.beyondAnyWait(at))")
        } else if let at = status.nextRetryAt {
            let why = status.nextRetryReason.map { ": \($0.explanation)" } ?? ""
            lines.append(
                at > now
                    ? "    next attempt: not before \(Timestamp.format(at))\(why); `gitbay-sync run --now` tries it now"
                    : "    next attempt: at the next run (it waited until \(Timestamp.format(at))\(why))")
        }
        if status.condition == .pending { lines.append("    not reconciled yet: run `gitbay-sync run`") }
        if status.condition == .authFailed, account.state == .active {
            lines.append("    to fix: \(escaped: FailureText.signInAgain(account.instance, account: account.name))")
        }
        return lines
    }

    /// Why a next attempt recorded for `at` is not waited for (`FailurePolicy.isBeyondAnyWait`).
    static func beyondAnyWait(_ at: Date) -> String {
        "it was recorded for \(Timestamp.format(at)), further ahead than any wait gitbay-sync sets: a wrong clock or a wrong server"
    }
}

extension AccountRow {
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
                    token: facts.tokenDetails[account.id] ?? .unknown))
        }
        return rows
    }
}
