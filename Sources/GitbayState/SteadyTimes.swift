import GitbaySupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The last attempt and success of the accounts whose verdict steady runs left as it was,
/// kept in one row (`steady_checks`) rather than in each account's status: a steady run of
/// 512 accounts writes one row, not 512. An account's status row says whether its times are
/// here (`steady_times`); a status written in full takes them back.
///
/// Entries are ordered by account id, so that reading every status in id order meets them in
/// turn. Stored as three little-endian 64-bit integers an entry: the account id and the
/// milliseconds since 1970 of the attempt and of the success (`Int64.min` for none), each as
/// `Timestamp.format` would write it.
package struct SteadyTimes: Sendable, Equatable {
    package struct Entry: Sendable, Equatable {
        package let accountID: Int64
        let attempt: Int64
        let success: Int64

        /// Nil where a time is out of what the row form holds (see `Timestamp.milliseconds`):
        /// such a verdict is written in the account's own row.
        package init?(accountID: Int64, attempt: Date?, success: Date?) {
            guard let attempt = Self.number(attempt), let success = Self.number(success) else { return nil }
            (self.accountID, self.attempt, self.success) = (accountID, attempt, success)
        }

        init(accountID: Int64, attempt: Int64, success: Int64) {
            (self.accountID, self.attempt, self.success) = (accountID, attempt, success)
        }

        var attemptDate: Date? { Self.date(attempt) }
        var successDate: Date? { Self.date(success) }

        /// `Int64.min` for none (never a time's number: those start in 1600); nil for a time
        /// out of the row form.
        private static func number(_ date: Date?) -> Int64? {
            guard let date else { return .min }
            return Timestamp.milliseconds(date)
        }

        private static func date(_ number: Int64) -> Date? {
            number == .min ? nil : Timestamp.date(milliseconds: number)
        }
    }

    /// In increasing account id, one an account.
    package private(set) var entries: [Entry]

    package static let empty = SteadyTimes(ordered: [])

    /// `entries` must be in increasing account id.
    init(ordered entries: [Entry]) {
        self.entries = entries
    }

    /// The entries a stored row holds; a trailing part too short for an entry, or an entry out
    /// of order, ends them (a row this version did not write is read as far as it makes sense).
    init(bytes: UnsafeRawBufferPointer) {
        var entries: [Entry] = []
        entries.reserveCapacity(bytes.count / 24)
        var offset = 0
        while offset + 24 <= bytes.count {
            let entry = Entry(
                accountID: Int64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: Int64.self)),
                attempt: Int64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset + 8, as: Int64.self)),
                success: Int64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset + 16, as: Int64.self)))
            if let last = entries.last, last.accountID >= entry.accountID { break }
            entries.append(entry)
            offset += 24
        }
        self.entries = entries
    }

    /// The stored form.
    var bytes: [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(entries.count * 24)
        func append(_ number: Int64) { withUnsafeBytes(of: number.littleEndian) { bytes.append(contentsOf: $0) } }
        for entry in entries {
            append(entry.accountID)
            append(entry.attempt)
            append(entry.success)
        }
        return bytes
    }

    /// The entry of `accountID`, if any.
    func entry(of accountID: Int64) -> Entry? {
        var (low, high) = (0, entries.count)
        while low < high {
            let middle = (low + high) / 2
            if entries[middle].accountID < accountID { low = middle + 1 } else { high = middle }
        }
        return low < entries.count && entries[low].accountID == accountID ? entries[low] : nil
    }

    /// These entries with `newer` in place of any of the same account (the first of `newer`
    /// for an account it names twice).
    func merging(_ newer: [Entry]) -> SteadyTimes {
        var merged: [Entry] = []
        merged.reserveCapacity(entries.count + newer.count)
        var old = entries[...]
        for entry in newer.sorted(by: { $0.accountID < $1.accountID }) where merged.last?.accountID != entry.accountID {
            while let first = old.first, first.accountID < entry.accountID {
                merged.append(first)
                old = old.dropFirst()
            }
            if old.first?.accountID == entry.accountID { old = old.dropFirst() }
            merged.append(entry)
        }
        merged.append(contentsOf: old)
        return SteadyTimes(ordered: merged)
    }
}
