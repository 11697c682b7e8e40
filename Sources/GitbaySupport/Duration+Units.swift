extension Duration {
    /// The duration in whole milliseconds, rounded up so a short positive timeout never becomes 0
    /// (which curl reads as "no timeout").
    package var roundedUpMilliseconds: Int {
        let (seconds, attoseconds) = components
        let millis = seconds * 1000 + attoseconds / 1_000_000_000_000_000
        let remainder = attoseconds % 1_000_000_000_000_000
        return Int(millis) + (remainder > 0 ? 1 : 0)
    }

    /// The duration in seconds, as a floating-point number.
    package var inSeconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }

    /// A short rendering for messages: `500ms`, `12s`, `1m30s`.
    package var shortDescription: String {
        let millis = roundedUpMilliseconds
        if millis < 1000 { return "\(millis)ms" }
        let seconds = (millis + 999) / 1000
        if seconds < 60 { return "\(seconds)s" }
        let minutes = seconds / 60
        let rest = seconds % 60
        return rest == 0 ? "\(minutes)m" : "\(minutes)m\(rest)s"
    }
}
