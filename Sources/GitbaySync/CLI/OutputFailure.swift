/// A write to standard output or standard error that did not go through (a full disk, a
/// closed pipe): the command's report is incomplete, so it cannot exit 0.
public struct OutputFailure: Sendable, Equatable {
    /// "standard output" or "standard error".
    public let stream: String
    /// Why, as the system said it.
    public let reason: String

    public init(stream: String, reason: String) {
        self.stream = stream
        self.reason = reason
    }
}
