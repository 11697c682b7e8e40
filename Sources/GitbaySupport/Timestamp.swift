import FoundationEssentials

/// Instants as stored in the database and printed in `--json`: ISO 8601 in UTC with
/// milliseconds, e.g. `2026-09-20T14:03:07.123Z`.
package enum Timestamp {
    private static let style = Date.ISO8601FormatStyle(includingFractionalSeconds: true)

    package static func format(_ date: Date) -> String {
        date.formatted(style)
    }

    package static func parse(_ text: String?) -> Date? {
        guard let text else { return nil }
        return try? style.parse(text)
    }
}
