#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Instants as stored in the database and printed in `--json`: ISO 8601 in UTC with
/// milliseconds, e.g. `2026-09-20T14:03:07.123Z`.
///
/// That one shape, from 1600 on, is written and read by plain arithmetic on the Gregorian
/// calendar (a run formats and parses a few per account). Anything else is left to Foundation,
/// which is lenient on input and counts dates before October 1582 in the Julian calendar.
package enum Timestamp {
    private static let style = Date.ISO8601FormatStyle(includingFractionalSeconds: true)

    package static func format(_ date: Date) -> String {
        guard let total = milliseconds(date) else { return date.formatted(style) }  // before 1600, past 9900
        let (days, dayMilliseconds) = floorDivision(total, 86_400_000)
        let (year, month, day) = civilDate(daysSinceEpoch: days)
        let second = dayMilliseconds / 1000
        var bytes: [UInt8] = []
        bytes.reserveCapacity(24)
        append(year, digits: 4, to: &bytes, then: "-")
        append(month, digits: 2, to: &bytes, then: "-")
        append(day, digits: 2, to: &bytes, then: "T")
        append(second / 3600, digits: 2, to: &bytes, then: ":")
        append(second / 60 % 60, digits: 2, to: &bytes, then: ":")
        append(second % 60, digits: 2, to: &bytes, then: ".")
        append(dayMilliseconds % 1000, digits: 3, to: &bytes, then: "Z")
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The milliseconds since 1970 that `format` writes for `date`, as a number; nil where it
    /// leaves the instant to Foundation (before 1600, past 9900).
    package static func milliseconds(_ date: Date) -> Int64? {
        // Whole seconds and the milliseconds of the fraction, from the reference date and cut
        // as Foundation cuts them, so that both write the same text for every instant.
        let interval = date.timeIntervalSinceReferenceDate
        let seconds = interval.rounded(.down)
        guard seconds.magnitude < 250_000_000_000 else { return nil }
        let total = (Int64(seconds) + 978_307_200) * 1000 + min(Int64(((interval - seconds) * 1000).rounded(.down)), 999)
        return total >= firstMillisecond ? total : nil
    }

    /// The instant `parse` reads from the text `format` writes for `milliseconds` (since 1970):
    /// `date(milliseconds: milliseconds(d)!)` is `parse(format(d))`.
    package static func date(milliseconds: Int64) -> Date {
        let (seconds, fraction) = floorDivision(milliseconds, 1000)
        return Date(timeIntervalSinceReferenceDate: Double(seconds - 978_307_200) + Double(fraction) / 1000)
    }

    /// 1600-01-01T00:00:00.000Z in milliseconds since 1970: the first instant written by arithmetic.
    private static let firstMillisecond = daysSinceEpoch(year: 1600, month: 1, day: 1) * 86_400_000

    package static func parse(_ text: String?) -> Date? {
        guard let text else { return nil }
        if let date = parseStored(text) { return date }
        return try? style.parse(text)
    }

    /// A time read from the UTF-8 bytes of its text (a database column's, not copied into a
    /// string first when it has the stored form); nil where `parse` gives nil.
    package static func parse(utf8 bytes: UnsafeBufferPointer<UInt8>) -> Date? {
        if let date = parseStored(bytes) { return date }
        return parse(String(decoding: bytes, as: UTF8.self))
    }

    /// `YYYY-MM-DDTHH:MM:SS.sssZ` exactly, or nil.
    private static func parseStored(_ text: String) -> Date? {
        var text = text
        return text.withUTF8(parseStored)
    }

    private static func parseStored(_ bytes: UnsafeBufferPointer<UInt8>) -> Date? {
        guard bytes.count == 24, bytes[23] == UInt8(ascii: "Z") else { return nil }
        let (dash, colon) = (UInt8(ascii: "-"), UInt8(ascii: ":"))
        guard bytes[4] == dash, bytes[7] == dash, bytes[10] == UInt8(ascii: "T"), bytes[13] == colon, bytes[16] == colon,
            bytes[19] == UInt8(ascii: ".")
        else { return nil }
        func number(_ start: Int, _ count: Int) -> Int64? {
            var value: Int64 = 0
            for byte in bytes[start..<(start + count)] {
                guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
                value = value * 10 + Int64(byte - UInt8(ascii: "0"))
            }
            return value
        }
        guard let year = number(0, 4), let month = number(5, 2), let day = number(8, 2), let hour = number(11, 2),
            let minute = number(14, 2), let second = number(17, 2), let milliseconds = number(20, 3),
            year >= 1600, (1...12).contains(month), (1...daysIn(month: month, year: year)).contains(day), hour < 24,
            minute < 60, second < 60
        else { return nil }
        let days = daysSinceEpoch(year: year, month: month, day: day)
        let total = ((days * 24 + hour) * 60 + minute) * 60 + second
        // Whole seconds and the fraction added as Foundation adds them, from its reference date.
        return Date(timeIntervalSinceReferenceDate: Double(total - 978_307_200) + Double(milliseconds) / 1000)
    }

    private static func append(_ value: Int64, digits: Int, to bytes: inout [UInt8], then separator: Unicode.Scalar) {
        var divisor: Int64 = 1
        for _ in 1..<digits { divisor *= 10 }
        var rest = value
        while divisor > 0 {
            bytes.append(UInt8(ascii: "0") + UInt8(rest / divisor))
            rest %= divisor
            divisor /= 10
        }
        bytes.append(UInt8(ascii: separator))
    }

    private static func floorDivision(_ value: Int64, _ divisor: Int64) -> (Int64, Int64) {
        let remainder = value % divisor
        return remainder < 0 ? (value / divisor - 1, remainder + divisor) : (value / divisor, remainder)
    }

    private static func isLeap(_ year: Int64) -> Bool { year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) }

    private static func daysIn(month: Int64, year: Int64) -> Int64 {
        switch month {
        case 2: isLeap(year) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days from 1970-01-01 to the given proleptic Gregorian date. Counts years from March, so
    /// that a leap day falls at the end of its year, in eras of 400 years (146,097 days).
    private static func daysSinceEpoch(year: Int64, month: Int64, day: Int64) -> Int64 {
        let marchYear = month <= 2 ? year - 1 : year
        let era = (marchYear >= 0 ? marchYear : marchYear - 399) / 400
        let yearOfEra = marchYear - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The proleptic Gregorian date `days` after 1970-01-01: the inverse of `daysSinceEpoch`.
    private static func civilDate(daysSinceEpoch days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let shifted = days + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
