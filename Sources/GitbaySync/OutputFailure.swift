/// A write to standard output or standard error that did not go through (a full disk, a
/// closed pipe): the command's report is incomplete, so it cannot exit 0.
package struct OutputFailure: Sendable, Equatable {
    /// "standard output" or "standard error".
    package let stream: String
    /// Why, as the system said it.
    package let reason: String

    package init(stream: String, reason: String) {
        self.stream = stream
        self.reason = reason
    }
}
