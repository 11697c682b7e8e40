/// How `token create --ttl` reads a lifetime: a Go duration (`720h`, `1h30m`, `90m`, `1.5h`)
/// or a whole number of days (`30d`), positive and at most Go's longest duration (about 292
/// years).
enum TokenLifetime {
    /// The lifetime `text` names, or nil when it names none.
    static func parse(_ text: String) -> Duration? {
        let nanoseconds: UInt64?
        if text.count > 1, text.hasSuffix("d"), text.dropLast().allSatisfy(\.isASCIIDigit) {
            nanoseconds = UInt64(text.dropLast()).flatMap { multiplied($0, by: unit("h")! * 24) }
        } else {
            nanoseconds = goDuration(text)
        }
        guard let nanoseconds, nanoseconds > 0, nanoseconds <= UInt64(Int64.max) else { return nil }
        return .nanoseconds(Int64(nanoseconds))
    }

    /// Go's `time.ParseDuration` for a duration that is not negative, in nanoseconds; nil for
    /// any text it refuses (an empty one, a number without its unit, an unknown unit, one past
    /// `Int64.max` nanoseconds). A leading `-` is refused too: a lifetime cannot be negative.
    static func goDuration(_ text: String) -> UInt64? {
        var rest = Substring(text)
        if rest.first == "+" { rest = rest.dropFirst() }
        if rest == "0" { return 0 }
        guard !rest.isEmpty else { return nil }
        var total: UInt64 = 0
        while !rest.isEmpty {
            let whole = rest.prefix(while: \.isASCIIDigit)
            rest = rest.dropFirst(whole.count)
            var fraction: Substring = ""
            if rest.first == "." {
                rest = rest.dropFirst()
                fraction = rest.prefix(while: \.isASCIIDigit)
                rest = rest.dropFirst(fraction.count)
            }
            guard !(whole.isEmpty && fraction.isEmpty) else { return nil }
            let name = rest.prefix(while: { !$0.isASCIIDigit && $0 != "." })
            rest = rest.dropFirst(name.count)
            guard let scale = unit(String(name)), let component = component(whole, fraction, scale: scale) else { return nil }
            let (sum, overflow) = total.addingReportingOverflow(component)
            guard !overflow, sum <= UInt64(Int64.max) else { return nil }
            total = sum
        }
        return total
    }

    /// Nanoseconds in one of Go's units.
    private static func unit(_ name: String) -> UInt64? {
        switch name {
        case "ns": 1
        case "us", "\u{B5}s", "\u{3BC}s": 1_000
        case "ms": 1_000_000
        case "s": 1_000_000_000
        case "m": 60_000_000_000
        case "h": 3_600_000_000_000
        default: nil
        }
    }

    /// `whole.fraction` units of `scale` nanoseconds, the fraction rounded down as Go does.
    private static func component(_ whole: Substring, _ fraction: Substring, scale: UInt64) -> UInt64? {
        var value: UInt64 = 0
        for digit in whole {
            guard let next = multiplied(value, by: 10)?.addingReportingOverflow(UInt64(digit.wholeNumberValue!)),
                !next.overflow
            else { return nil }
            value = next.partialValue
        }
        guard var nanoseconds = multiplied(value, by: scale) else { return nil }
        var place = Double(scale)
        var part = 0.0
        for digit in fraction {
            place /= 10
            part += Double(digit.wholeNumberValue!) * place
        }
        let (sum, overflow) = nanoseconds.addingReportingOverflow(UInt64(part))
        guard !overflow else { return nil }
        nanoseconds = sum
        return nanoseconds
    }

    private static func multiplied(_ value: UInt64, by factor: UInt64) -> UInt64? {
        let (product, overflow) = value.multipliedReportingOverflow(by: factor)
        return overflow ? nil : product
    }
}

extension Character {
    /// `0` to `9` only, unlike `isNumber`, which takes every script's digits.
    fileprivate var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}
