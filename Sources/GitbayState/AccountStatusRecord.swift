import GitbaySupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The outcome of an account's latest reconcile.
package struct AccountStatusRecord: Sendable, Equatable {
    /// The fields, held once on the heap (`CopyOnWrite`): a verdict is copied a dozen times
    /// per account of a run.
    private struct Values: Equatable {
        var condition: AccountCondition
        var detail: String?
        var lastAttemptAt: Date?
        var lastSuccessAt: Date?
        var lastError: String?
        var nextRetryAt: Date?
        var nextRetryReason: RetryReason?
        var failures: Int
        var listETag: String?
        var etagBasis: String?
        var unchecked: Unchecked?
    }

    private var fields: CopyOnWrite<Values>

    package var condition: AccountCondition {
        get { fields.value.condition }
        set { fields.value.condition = newValue }
    }
    package var detail: String? {
        get { fields.value.detail }
        set { fields.value.detail = newValue }
    }
    package var lastAttemptAt: Date? {
        get { fields.value.lastAttemptAt }
        set { fields.value.lastAttemptAt = newValue }
    }
    package var lastSuccessAt: Date? {
        get { fields.value.lastSuccessAt }
        set { fields.value.lastSuccessAt = newValue }
    }
    package var lastError: String? {
        get { fields.value.lastError }
        set { fields.value.lastError = newValue }
    }
    package var nextRetryAt: Date? {
        get { fields.value.nextRetryAt }
        set { fields.value.nextRetryAt = newValue }
    }
    /// Why the account waits until `nextRetryAt`.
    package var nextRetryReason: RetryReason? {
        get { fields.value.nextRetryReason }
        set { fields.value.nextRetryReason = newValue }
    }
    package var failures: Int {
        get { fields.value.failures }
        set { fields.value.failures = newValue }
    }
    package var listETag: String? {
        get { fields.value.listETag }
        set { fields.value.listETag = newValue }
    }
    package var etagBasis: String? {
        get { fields.value.etagBasis }
        set { fields.value.etagBasis = newValue }
    }
    /// Why the latest runs could not check the account, when it could not be; nil once a
    /// pass checked it.
    package var unchecked: Unchecked? {
        get { fields.value.unchecked }
        set { fields.value.unchecked = newValue }
    }

    package init(
        condition: AccountCondition = .pending, detail: String? = nil, lastAttemptAt: Date? = nil,
        lastSuccessAt: Date? = nil, lastError: String? = nil, nextRetryAt: Date? = nil, nextRetryReason: RetryReason? = nil,
        failures: Int = 0, listETag: String? = nil, etagBasis: String? = nil
    ) {
        fields = CopyOnWrite(
            Values(
                condition: condition, detail: detail, lastAttemptAt: lastAttemptAt, lastSuccessAt: lastSuccessAt, lastError: lastError,
                nextRetryAt: nextRetryAt, nextRetryReason: nextRetryReason, failures: failures, listETag: listETag, etagBasis: etagBasis))
    }

    package static func == (lhs: AccountStatusRecord, rhs: AccountStatusRecord) -> Bool {
        lhs.fields.sharesStorage(with: rhs.fields) || lhs.fields.value == rhs.fields.value
    }

    /// Whether the two differ in nothing but the times of the attempt and the success.
    package func differsOnlyInTimes(from other: AccountStatusRecord) -> Bool {
        guard !fields.sharesStorage(with: other.fields) else { return true }
        var (mine, theirs) = (fields.value, other.fields.value)
        (mine.lastAttemptAt, mine.lastSuccessAt, theirs.lastAttemptAt, theirs.lastSuccessAt) = (nil, nil, nil, nil)
        return mine == theirs
    }
}
