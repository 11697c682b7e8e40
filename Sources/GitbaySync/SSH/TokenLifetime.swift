import GitbayAPI

/// The lifetime `login --ssh --ttl` asks the server to give the token it mints, read as the
/// server reads `token create --ttl`: a Go duration (`720h`, `1h30m`) or a whole number of
/// days (`90d`), positive and at most Go's longest duration (about 292 years). It must be an
/// hour at least: a token that expires before the next few runs signs nothing in for long.
struct TokenLifetime: Sendable, Equatable {
    /// As given, and as the server is sent it.
    let text: String
    let duration: Duration

    static let standard = TokenLifetime(text: "90d", duration: .seconds(90 * 86_400))
    static let minimum = Duration.seconds(3600)

    private init(text: String, duration: Duration) {
        self.text = text
        self.duration = duration
    }

    /// The lifetime `text` names, or why it names none.
    static func parse(_ text: String) -> Result<TokenLifetime, UsageError> {
        let refusal = UsageError(
            "invalid value for --ttl: '\(text)' is not a lifetime; write a number of days (90d) or a Go duration (720h, 1h30m)")
        let duration: Duration
        if text.count > 1, text.hasSuffix("d"), text.dropLast().allSatisfy({ ("0"..."9").contains($0) }) {
            let (seconds, overflow) = (Int64(text.dropLast()) ?? .max).multipliedReportingOverflow(by: 86_400)
            // Go's longest duration is Int64.max nanoseconds.
            guard !overflow, seconds <= Int64.max / 1_000_000_000 else { return .failure(tooLong(text)) }
            duration = .seconds(seconds)
        } else {
            guard let parsed = GoDuration.parse(text) else { return .failure(refusal) }
            duration = parsed
        }
        guard duration >= minimum else {
            return .failure(UsageError("invalid value for --ttl: '\(text)' is shorter than an hour; the token would expire before it is of use"))
        }
        return .success(TokenLifetime(text: text, duration: duration))
    }

    private static func tooLong(_ text: String) -> UsageError {
        UsageError("invalid value for --ttl: '\(text)' is longer than a server takes (about 292 years at most)")
    }

    /// The value of a `--ttl` option.
    static func option(_ text: String) throws(UsageError) -> TokenLifetime {
        try parse(text).get()
    }
}
