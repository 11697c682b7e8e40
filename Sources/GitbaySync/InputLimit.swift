import GitbayReconcile

/// How much a command reads on stdin. Every read is bounded, so an endless stream (`yes |`)
/// or a huge paste is refused as soon as it passes the bound, a few bytes past the limit,
/// instead of being read to its end.
struct InputLimit: Sendable {
    /// What is read, for messages: "API token".
    let name: String
    /// `name` with its article: "an API token".
    let what: String
    /// The most the input may hold, in bytes, once whitespace around it is trimmed.
    let maximumBytes: Int
    /// Why the limit is what it is, for messages: "1 KiB".
    let reason: String
    /// What the user can do instead.
    let advice: String

    /// Whitespace around the input (a line break, a CRLF, a few spaces from a paste) is
    /// allowed beyond `maximumBytes`, up to this many bytes.
    static let surroundingWhitespace = 64

    /// Where reading stops: stdin holding more than this many bytes is refused.
    var readLimit: Int { maximumBytes + Self.surroundingWhitespace }

    /// An API token: gitbay's are 43 bytes (`gb_` and 40 hex digits); 1 KiB leaves room for
    /// any other form a server may mint.
    static let apiToken = InputLimit(
        name: "API token", what: "an API token", maximumBytes: 1024, reason: "1 KiB", advice: "paste the token alone (it looks like gb_…)"
    )
    /// A push token: the longest a gitbay server stores.
    static let deviceToken = InputLimit(
        name: "device token", what: "a device token", maximumBytes: 512, reason: "the most a gitbay server stores",
        advice: "give the token alone, as the platform hands it out"
    )
    /// A push payload: the most APNs delivers for a notification (4 KB).
    static let pushPayload = InputLimit(
        name: "push payload", what: "a push payload", maximumBytes: 4096, reason: "the most APNs delivers", advice: "pipe in one notification's JSON"
    )

    /// The refusal of input longer than the limit: `bytes` long once trimmed, or (nil) past
    /// the bound, where reading stopped.
    func tooLong(bytes: Int? = nil) -> CommandFailure {
        let found = bytes.map { "the \(name) is \($0) bytes" } ?? "more than \(maximumBytes) bytes on stdin (reading stopped there)"
        return CommandFailure("\(found): \(what) is at most \(maximumBytes) bytes (\(reason)); \(advice)", exitCode: .dataError)
    }
}
