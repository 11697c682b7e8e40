#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The outcome of an account's latest reconcile.
package struct AccountStatusRecord: Sendable, Equatable {
    /// The fields, held once on the heap and copied only when a value that shares them is
    /// changed: see `Box`.
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

    /// A copy of the value costs one reference count instead of one per string. `@unchecked
    /// Sendable` invariant: `values` is written only through `AccountStatusRecord.values`, which first
    /// makes the box this value's own (`isKnownUniquelyReferenced`); a box two values share,
    /// which another thread may read, is never written.
    private final class Box: @unchecked Sendable {
        var values: Values
        init(_ values: Values) { self.values = values }
    }

    private var box: Box

    private var values: Values {
        get { box.values }
        _modify {
            if !isKnownUniquelyReferenced(&box) { box = Box(box.values) }
            yield &box.values
        }
    }

    package var condition: AccountCondition {
        get { box.values.condition }
        set { values.condition = newValue }
    }
    package var detail: String? {
        get { box.values.detail }
        set { values.detail = newValue }
    }
    package var lastAttemptAt: Date? {
        get { box.values.lastAttemptAt }
        set { values.lastAttemptAt = newValue }
    }
    package var lastSuccessAt: Date? {
        get { box.values.lastSuccessAt }
        set { values.lastSuccessAt = newValue }
    }
    package var lastError: String? {
        get { box.values.lastError }
        set { values.lastError = newValue }
    }
    package var nextRetryAt: Date? {
        get { box.values.nextRetryAt }
        set { values.nextRetryAt = newValue }
    }
    /// Why the account waits until `nextRetryAt`.
    package var nextRetryReason: RetryReason? {
        get { box.values.nextRetryReason }
        set { values.nextRetryReason = newValue }
    }
    package var failures: Int {
        get { box.values.failures }
        set { values.failures = newValue }
    }
    package var listETag: String? {
        get { box.values.listETag }
        set { values.listETag = newValue }
    }
    package var etagBasis: String? {
        get { box.values.etagBasis }
        set { values.etagBasis = newValue }
    }
    /// Why the latest runs could not check the account, when it could not be; nil once a
    /// pass checked it.
    package var unchecked: Unchecked? {
        get { box.values.unchecked }
        set { values.unchecked = newValue }
    }

    package init(
        condition: AccountCondition = .pending, detail: String? = nil, lastAttemptAt: Date? = nil,
        lastSuccessAt: Date? = nil, lastError: String? = nil, nextRetryAt: Date? = nil, nextRetryReason: RetryReason? = nil,
        failures: Int = 0, listETag: String? = nil, etagBasis: String? = nil
    ) {
        box = Box(
            Values(
                condition: condition, detail: detail, lastAttemptAt: lastAttemptAt, lastSuccessAt: lastSuccessAt, lastError: lastError,
                nextRetryAt: nextRetryAt, nextRetryReason: nextRetryReason, failures: failures, listETag: listETag, etagBasis: etagBasis))
    }

    package static func == (lhs: AccountStatusRecord, rhs: AccountStatusRecord) -> Bool {
        lhs.box === rhs.box || lhs.box.values == rhs.box.values
    }

    /// Whether the two differ in nothing but the times of the attempt and the success.
    package func differsOnlyInTimes(from other: AccountStatusRecord) -> Bool {
        guard box !== other.box else { return true }
        return Self.sameButTimes(box.values, other.box.values)
    }

    /// Every field but the two times compared in place: a copy of the values with their times
    /// cleared counted a reference for each string, in both, for every account of a run.
    private static func sameButTimes(_ mine: borrowing Values, _ theirs: borrowing Values) -> Bool {
        mine.condition == theirs.condition && mine.detail == theirs.detail && mine.lastError == theirs.lastError
            && mine.nextRetryAt == theirs.nextRetryAt && mine.nextRetryReason == theirs.nextRetryReason
            && mine.failures == theirs.failures && mine.listETag == theirs.listETag && mine.etagBasis == theirs.etagBasis
            && mine.unchecked == theirs.unchecked
    }
}
