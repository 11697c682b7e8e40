/// Text written the way gitbay's Go code writes it, where Swift's own rules differ.
enum GoText {
    /// The string Go's `encoding/json` writes for `bytes`: every byte that does not start a
    /// valid UTF-8 sequence becomes its own U+FFFD, and decoding resumes at the next byte.
    ///
    /// Swift's `String(decoding:as:)` replaces a whole broken sequence with one U+FFFD, so a
    /// 3-byte character cut after 2 bytes gives one there and two here.
    static func jsonString(utf8 bytes: some Collection<UInt8>) -> String {
        let bytes = Array(bytes)
        var scalars = String.UnicodeScalarView()
        var index = 0
        while index < bytes.count {
            if let (scalar, length) = rune(in: bytes, at: index) {
                scalars.append(scalar)
                index += length
            } else {
                scalars.append("\u{FFFD}")
                index += 1
            }
        }
        return String(scalars)
    }

    /// The character at `index` under Go's `utf8.DecodeRune` rules and its length in bytes;
    /// nil where Go answers `(RuneError, 1)`: a stray continuation byte, an overlong form, a
    /// surrogate, a value past U+10FFFF, a byte that never starts a sequence, or a truncated one.
    static func rune(in bytes: [UInt8], at index: Int) -> (Unicode.Scalar, Int)? {
        let lead = bytes[index]
        if lead < 0x80 { return (Unicode.Scalar(lead), 1) }
        // The accepted range of the second byte depends on the lead byte; this is what rules
        // out overlong forms (C0, C1, E0 80-9F, F0 80-8F), surrogates (ED A0-BF) and values
        // past U+10FFFF (F4 90-BF, F5-FF).
        let length: Int
        let second: ClosedRange<UInt8>
        switch lead {
        case 0xC2...0xDF: (length, second) = (2, 0x80...0xBF)
        case 0xE0: (length, second) = (3, 0xA0...0xBF)
        case 0xE1...0xEC, 0xEE...0xEF: (length, second) = (3, 0x80...0xBF)
        case 0xED: (length, second) = (3, 0x80...0x9F)
        case 0xF0: (length, second) = (4, 0x90...0xBF)
        case 0xF1...0xF3: (length, second) = (4, 0x80...0xBF)
        case 0xF4: (length, second) = (4, 0x80...0x8F)
        default: return nil
        }
        guard index + length <= bytes.count, second.contains(bytes[index + 1]) else { return nil }
        var value = UInt32(lead) & (0xFF >> (length + 1))
        for offset in 1..<length {
            let byte = bytes[index + offset]
            guard offset == 1 || (0x80...0xBF).contains(byte) else { return nil }
            value = value << 6 | UInt32(byte & 0x3F)
        }
        return Unicode.Scalar(value).map { ($0, length) }
    }

    /// What Go's `time.Duration.String()` prints: `0s`, `1.5ms`, `2s`, `1m1s`, `1h0m0s`.
    /// Precision below a nanosecond is dropped, as a Go duration has none.
    static func duration(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        let nanoseconds = seconds * 1_000_000_000 + attoseconds / 1_000_000_000
        let sign = nanoseconds < 0 ? "-" : ""
        let magnitude = nanoseconds.magnitude
        if magnitude == 0 { return "0s" }
        if magnitude < 1_000 { return sign + String(magnitude) + "ns" }
        if magnitude < 1_000_000 { return sign + decimal(magnitude, fractionDigits: 3) + "\u{B5}s" }
        if magnitude < 1_000_000_000 { return sign + decimal(magnitude, fractionDigits: 6) + "ms" }

        let wholeSeconds = magnitude / 1_000_000_000
        var text = decimal(wholeSeconds % 60 * 1_000_000_000 + magnitude % 1_000_000_000, fractionDigits: 9) + "s"
        let minutes = wholeSeconds / 60
        // Go prints the minutes from one minute on, and the hours from one hour on.
        if minutes > 0 { text = String(minutes % 60) + "m" + text }
        if minutes >= 60 { text = String(minutes / 60) + "h" + text }
        return sign + text
    }

    /// `value` divided by 10^`fractionDigits`, without trailing zeros or a bare point.
    private static func decimal(_ value: UInt64, fractionDigits: Int) -> String {
        var scale: UInt64 = 1
        for _ in 0..<fractionDigits { scale *= 10 }
        let whole = String(value / scale)
        var fraction = String(value % scale)
        fraction = String(repeating: "0", count: fractionDigits - fraction.count) + fraction
        while fraction.last == "0" { fraction.removeLast() }
        return fraction.isEmpty ? whole : whole + "." + fraction
    }
}
