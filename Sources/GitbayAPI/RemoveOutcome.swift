/// The result of `notifications device remove`.
package enum RemoveOutcome: Sendable, Equatable {
    /// The row was removed now.
    case removed
    /// The server has no such row for this account (404): already gone, which is what was wanted.
    case alreadyGone
}
