import GitbaySupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Instants said for a person, against the time now: "12 min ago", "in 5 min", "3 days ago".
/// The text forms of `status`, `status --history`, `accounts` and `doctor` say times so;
/// `--json` keeps the absolute time (`Timestamp`).
enum RelativeTime {
    /// How far from now an instant is still told by its distance; further, by its date (a
    /// wrong clock's year 2100 reads as a date, not as tens of thousands of days).
    static let furthest: Double = 30 * 86400

    /// `date` as seen from `now`: "just now", "40 s ago", "in 5 min", "2 h ago", "3 days ago",
    /// and beyond `furthest` either way "on 2026-09-20".
    static func said(_ date: Date, now: Date) -> String {
        let seconds = date.timeIntervalSince(now)
        guard seconds.magnitude < furthest else { return "on " + String(Timestamp.format(date).prefix(10)) }
        guard seconds.magnitude >= 1 else { return "just now" }
        return seconds < 0 ? length(seconds) + " ago" : "in " + length(seconds)
    }

    /// A duration, without a direction, in its largest whole unit: "40 s", "3 min", "2 h", "1 day".
    static func length(_ seconds: Double) -> String {
        let distance = seconds.magnitude
        switch distance {
        case ..<60: return "\(Int(distance)) s"
        case ..<3600: return "\(Int(distance / 60)) min"
        case ..<86400: return "\(Int(distance / 3600)) h"
        default:
            let days = Int(distance / 86400)
            return "\(days) day\(days == 1 ? "" : "s")"
        }
    }
}
