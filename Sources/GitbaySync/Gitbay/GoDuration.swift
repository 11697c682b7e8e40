/// Reads durations written by Go's `time.Duration.String`: `12s`, `1m30s`, `500ms`, `1h2m3.5s`.
enum GoDuration {
    /// The duration in `text`, or nil when it is not a non-negative Go duration.
    static func parse(_ text: some StringProtocol) -> Duration? {
        let scalars = Array(text.unicodeScalars)
        guard !scalars.isEmpty else { return nil }
        if scalars == ["0"] { return .zero }
        var index = 0
        var total = Duration.zero
        while index < scalars.count {
            // A number: digits, optionally a fraction.
            var whole: Int64 = 0
            var fraction = 0.0
            var fractionScale = 1.0
            var sawDigit = false
            while index < scalars.count, let digit = scalars[index].digitValue {
                let (shifted, overflow) = whole.multipliedReportingOverflow(by: 10)
                guard !overflow else { return nil }
                whole = shifted + Int64(digit)
                sawDigit = true
                index += 1
            }
            if index < scalars.count, scalars[index] == "." {
                index += 1
                while index < scalars.count, let digit = scalars[index].digitValue {
                    fractionScale /= 10
                    fraction += Double(digit) * fractionScale
                    sawDigit = true
                    index += 1
                }
            }
            guard sawDigit else { return nil }
            // A unit, always present after a number.
            var unit = ""
            while index < scalars.count, scalars[index].digitValue == nil, scalars[index] != "." {
                unit.unicodeScalars.append(scalars[index])
                index += 1
            }
            guard let size = unitSize(unit) else { return nil }
            total += size * whole + size * fraction
        }
        return total
    }

    /// The wait named in a message such as `too many writes: ...; try again in 1m30s`.
    static func parseWait(inMessage message: String) -> Duration? {
        guard let marker = message.range(of: "try again in ") else { return nil }
        let rest = message[marker.upperBound...]
        let end = rest.firstIndex(where: { $0 == " " || $0 == "\n" || $0 == ";" || $0 == "," || $0 == ")" }) ?? rest.endIndex
        var word = rest[..<end]
        while word.hasSuffix(".") { word = word.dropLast() }
        return parse(word)
    }

    private static func unitSize(_ unit: String) -> Duration? {
        switch unit {
        case "ns": .nanoseconds(1)
        case "us", "\u{00B5}s", "\u{03BC}s": .microseconds(1)
        case "ms": .milliseconds(1)
        case "s": .seconds(1)
        case "m": .seconds(60)
        case "h": .seconds(3600)
        default: nil
        }
    }
}

private extension Unicode.Scalar {
    var digitValue: Int? {
        (48...57).contains(value) ? Int(value - 48) : nil
    }
}
