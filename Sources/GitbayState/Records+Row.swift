import GitbaySupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

// Each record read from its row by column name: a query may list the columns in any order (or
// alias them to these names), and a field added to a record is read here, by its column's name.

extension AccountRecord {
    init(row: Row) throws(SQLiteError) {
        var instances = InstanceTexts()
        try self.init(row: row, instances: &instances)
    }

    /// The account in `row`, its instance taken from `instances` when parsed before: many
    /// accounts share a few instances.
    init(row: Row, instances: inout InstanceTexts) throws(SQLiteError) {
        let instance = try row.withText("instance") { instances.instance($0) }
        self.init(
            id: try row.int64("id"), instance: instance, username: try row.text("username"), name: try row.text("name"),
            state: AccountState(rawValue: try row.text("state")) ?? .active, signedInAt: try row.date("signed_in_at"),
            removalStartedAt: try row.optionalDate("removal_started_at"), sshDestination: try row.optionalText("ssh_destination"),
            pushOff: try row.int64("push_off") != 0)
    }
}

extension APITokenDetails {
    init(row: Row) throws(SQLiteError) {
        self.init(
            name: try row.optionalText("name"), expiresAt: try row.optionalDate("expires_at"),
            lifetime: try row.optionalInt64("lifetime_seconds").map { .seconds($0) })
    }
}

extension InstanceRecord {
    /// Nil for an instance URL that no longer parses.
    init?(row: Row) throws(SQLiteError) {
        let text = try row.text("instance")
        let preferred = try row.optionalInt64("preferred_account_id")
        guard let instance = try? InstanceURL(parsing: text) else { return nil }
        self.init(instance: instance, preferredAccountID: preferred)
    }
}

extension RetiredToken {
    init(row: Row) throws(SQLiteError) {
        let prefix = try row.text("prefix")
        self.init(
            generation: try row.int("generation"), prefix: prefix,
            token: try row.tokenIdentity(fingerprint: "fingerprint", length: "length", shown: "shown", prefix: prefix),
            retiredAt: try row.date("retired_at"))
    }
}

extension DeviceRecord {
    /// The device in `row`, with the tokens it held before (read from their own table).
    init(row: Row, history: [RetiredToken]) throws(SQLiteError) {
        self.init(
            token: try row.optionalText("token").map(Secret.init), generation: try row.int("token_generation"),
            label: try row.text("label"), installMarker: try row.text("install_marker"),
            tokenSetAt: try row.optionalDate("token_set_at"), history: history)
        machine = try row.optionalText("machine")
        movedAt = try row.optionalDate("moved_at")
    }
}

extension RegistrationRecord {
    init(row: Row) throws(SQLiteError) {
        let token = try row.tokenIdentity(
            fingerprint: "token_fingerprint", length: "token_length", shown: "token_shown", prefix: try row.text("token_prefix"))
        self.init(
            accountID: try row.int64("account_id"), deviceID: try row.int("device_id"), added: try row.optionalText("added"),
            token: token, generation: try row.int("token_generation"), madeAt: try row.date("made_at"))
    }
}

extension AccountStatusRecord {
    /// `steady`: the times steady runs keep for the account, read in place of the row's own.
    init(row: Row, steady: SteadyTimes.Entry? = nil) throws(SQLiteError) {
        let (condition, detail) = (try row.text("condition"), try row.optionalText("detail"))
        var (attempt, success) = (steady?.attemptDate, steady?.successDate)
        if steady == nil { (attempt, success) = (try row.optionalDate("last_attempt_at"), try row.optionalDate("last_success_at")) }
        self.init(
            condition: AccountCondition(rawValue: condition) ?? .pending, detail: detail, lastAttemptAt: attempt, lastSuccessAt: success,
            lastError: try row.optionalText("last_error"), nextRetryAt: try row.optionalDate("next_retry_at"),
            nextRetryReason: try row.optionalText("next_retry_reason").flatMap(RetryReason.init(rawValue:)),
            failures: try row.int("failures"), listETag: try row.optionalText("list_etag"), etagBasis: try row.optionalText("etag_basis"))
        if let reason = try row.optionalText("unchecked_reason").flatMap(UncheckedReason.init(rawValue:)),
            let since = try row.optionalDate("unchecked_since")
        {
            unchecked = Unchecked(reason: reason, since: since, runs: try row.int("unchecked_runs"))
        }
    }
}

extension LeaseRecord {
    init(row: Row) throws(SQLiteError) {
        self.init(
            accountID: try row.int64("account_id"), holderPID: Int32(truncatingIfNeeded: try row.int64("holder_pid")),
            holderID: try row.text("holder_id"), takenAt: try row.date("taken_at"), expiresAt: try row.date("expires_at"))
    }
}

extension SameServerRecord {
    /// Nil when either URL no longer parses.
    init?(row: Row) throws(SQLiteError) {
        let (instanceText, otherText) = (try row.text("instance"), try row.text("other"))
        let (deviceID, added, provenAt) = (try row.int("device_id"), try row.text("added"), try row.date("proven_at"))
        guard let instance = try? InstanceURL(parsing: instanceText), let other = try? InstanceURL(parsing: otherText) else { return nil }
        self.init(instance: instance, other: other, deviceID: deviceID, added: added, provenAt: provenAt)
    }
}

extension UnattendedRunRecord {
    init(row: Row) throws(SQLiteError) {
        let failed = try row.text("failed_accounts")
        self.init(
            trigger: try row.value("trigger", as: Trigger.self), startedAt: try row.date("started_at"), finishedAt: try row.date("finished_at"),
            result: Result(rawValue: try row.text("result")) ?? .failed, accounts: try row.int("accounts"),
            failedAccounts: failed.isEmpty ? [] : failed.split(separator: "\n").map(String.init), waiting: try row.int("waiting"),
            period: try row.optionalInt64("period_seconds").map { .seconds($0) },
            pid: Int32(truncatingIfNeeded: try row.int64("pid")),
            uncheckedAccounts: try row.text("unchecked_accounts").split(separator: "\n").map(String.init))
    }
}
