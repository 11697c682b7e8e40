import GitbaySupport

/// Parses the periods `run --every` and `service install --every` take: whole numbers with a
/// unit, `30s`, `15m`, `1h`, `1h30m`, `2d`. Between 10 seconds and 7 days.
enum IntervalParser {
    static let minimum: Duration = .seconds(10)
    static let maximum: Duration = .seconds(7 * 24 * 3600)

    enum Failure: Error, Equatable, CustomStringConvertible {
        case malformed(String)
        case tooShort(String)
        case tooLong(String)

        var description: String {
            switch self {
            case .malformed(let text):
                "'\(text)' is not a duration; write a whole number and a unit: 30s, 15m, 1h, 1h30m or 1d"
            case .tooShort(let text):
                "'\(text)' is too short; the period must be at least 10s"
            case .tooLong(let text):
                "'\(text)' is too long; the period must be at most 7d"
            }
        }
    }

    static func parse(_ text: String) throws(Failure) -> Duration {
        var seconds: Int64 = 0
        var number: Int64?
        var lastUnitRank = Int.max
        for character in text {
            if let digit = character.wholeNumberValue, character.isASCII {
                let (times, overflowA) = (number ?? 0).multipliedReportingOverflow(by: 10)
                let (sum, overflowB) = times.addingReportingOverflow(Int64(digit))
                guard !overflowA, !overflowB, sum < 1_000_000_000 else { throw .tooLong(text) }
                number = sum
                continue
            }
            let units: [Character: (seconds: Int64, rank: Int)] = ["s": (1, 0), "m": (60, 1), "h": (3600, 2), "d": (86400, 3)]
            guard let unit = units[character], let value = number, unit.rank < lastUnitRank else { throw .malformed(text) }
            seconds += value * unit.seconds
            guard seconds <= 1_000_000_000 else { throw .tooLong(text) }
            lastUnitRank = unit.rank
            number = nil
        }
        guard number == nil, lastUnitRank != Int.max else { throw .malformed(text) }
        let duration = Duration.seconds(seconds)
        guard duration >= minimum else { throw .tooShort(text) }
        guard duration <= maximum else { throw .tooLong(text) }
        return duration
    }

    /// The shortest spelling of a whole number of seconds: `90s` -> `1m30s`.
    static func format(_ duration: Duration) -> String {
        var remaining = duration.components.seconds
        guard remaining > 0 else { return "0s" }
        var text = ""
        for (unit, size) in [("d", Int64(86400)), ("h", 3600), ("m", 60), ("s", 1)] where remaining >= size {
            text += "\(remaining / size)\(unit)"
            remaining %= size
        }
        return text
    }
}

extension IntervalParser {
    /// The value of an `--every` option.
    static func option(_ text: String) throws(UsageError) -> Duration {
        do {
            return try parse(text)
        } catch {
            throw UsageError("invalid value for --every: \(error)")
        }
    }
}
