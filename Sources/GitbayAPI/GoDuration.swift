/// Reads durations written by Go's `time.Duration.String`: `12s`, `1m30s`, `500ms`, `1h2m3.5s`.
package enum GoDuration {
    /// The duration in `text`, or nil when it is not a non-negative Go duration. Like Go, a
    /// duration that does not fit in 64 bits of nanoseconds (about 292 years) is not one: a
    /// server message can hold any number, and it must not trap on overflow here.
    package static func parse(_ text: some StringProtocol) -> Duration? {
        let scalars = Array(text.unicodeScalars)
        guard !scalars.isEmpty else { return nil }
        if scalars == ["0"] { return .zero }
        var index = 0
        var totalNanoseconds: Int64 = 0
        while index < scalars.count {
            // A number: digits, optionally a fraction.
            var whole: Int64 = 0
            var fraction = 0.0
            var fractionScale = 1.0
            var sawDigit = false
            while index < scalars.count, let digit = scalars[index].digitValue {
                let (shifted, overflow) = whole.multipliedReportingOverflow(by: 10)
                let (sum, carry) = shifted.addingReportingOverflow(Int64(digit))
                guard !overflow, !carry else { return nil }
                whole = sum
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
            guard let unitNanoseconds = nanoseconds(in: unit) else { return nil }
            // fraction < 1, so its part is below one unit and always fits.
            let fractionPart = Int64((fraction * Double(unitNanoseconds)).rounded(.down))
            let (wholePart, overflow) = whole.multipliedReportingOverflow(by: unitNanoseconds)
            let (withWhole, carryA) = totalNanoseconds.addingReportingOverflow(wholePart)
            let (withFraction, carryB) = withWhole.addingReportingOverflow(fractionPart)
            guard !overflow, !carryA, !carryB else { return nil }
            totalNanoseconds = withFraction
        }
        return .nanoseconds(totalNanoseconds)
    }

    /// The wait named in a message such as `too many writes: ...; try again in 1m30s`, at most
    /// `ServerAnswer.longestWait`: a message can name any duration up to 292 years.
    static func parseWait(inMessage message: String) -> Duration? {
        guard let marker = message.firstRange(of: "try again in ") else { return nil }
        let rest = message[marker.upperBound...]
        let end = rest.firstIndex(where: { $0 == " " || $0 == "\n" || $0 == ";" || $0 == "," || $0 == ")" }) ?? rest.endIndex
        var word = rest[..<end]
        while word.hasSuffix(".") { word = word.dropLast() }
        return parse(word).map { min($0, ServerAnswer.longestWait) }
    }

    private static func nanoseconds(in unit: String) -> Int64? {
        switch unit {
        case "ns": 1
        case "us", "\u{00B5}s", "\u{03BC}s": 1_000
        case "ms": 1_000_000
        case "s": 1_000_000_000
        case "m": 60_000_000_000
        case "h": 3_600_000_000_000
        default: nil
        }
    }
}

extension Unicode.Scalar {
    fileprivate var digitValue: Int? {
        (48...57).contains(value) ? Int(value - 48) : nil
    }
}
