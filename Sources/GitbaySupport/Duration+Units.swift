extension Duration {
    /// The duration in whole milliseconds, rounded up so a short positive timeout never becomes 0
    /// (which curl reads as "no timeout"). Saturates at `Int.max` (and `Int.min`): a duration
    /// can come from a number a server sent, and formatting it must never trap.
    package var roundedUpMilliseconds: Int {
        let (seconds, attoseconds) = components
        let (scaled, overflow) = seconds.multipliedReportingOverflow(by: 1000)
        let (millis, carry) = scaled.addingReportingOverflow(attoseconds / 1_000_000_000_000_000)
        guard !overflow, !carry else { return seconds < 0 ? Int.min : Int.max }
        let remainder = attoseconds % 1_000_000_000_000_000
        let (rounded, last) = millis.addingReportingOverflow(remainder > 0 ? 1 : 0)
        return last ? Int.max : Int(clamping: rounded)
    }

    /// The duration in seconds, as a floating-point number.
    package var inSeconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }

    /// A short rendering for messages: `500ms`, `12s`, `1m30s`, `2h`, `1h0m5s`. Whole seconds
    /// are rounded up; a negative duration reads as `0ms`. Never traps, however long.
    package var shortDescription: String {
        let (seconds, attoseconds) = components
        guard seconds > 0 || (seconds == 0 && attoseconds > 0) else { return "0ms" }
        let millis = roundedUpMilliseconds
        if millis < 1000 { return "\(millis)ms" }
        let (total, overflow) = seconds.addingReportingOverflow(attoseconds > 0 ? 1 : 0)
        let whole = overflow ? Int64.max : total
        let (hours, minutes, rest) = (whole / 3600, whole / 60 % 60, whole % 60)
        if hours == 0 { return minutes == 0 ? "\(rest)s" : rest == 0 ? "\(minutes)m" : "\(minutes)m\(rest)s" }
        if minutes == 0 && rest == 0 { return "\(hours)h" }
        return rest == 0 ? "\(hours)h\(minutes)m" : "\(hours)h\(minutes)m\(rest)s"
    }
}
