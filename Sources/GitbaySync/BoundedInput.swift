/// What a bounded read of standard input found.
package enum BoundedInput: Sendable, Equatable {
    /// All of the input, at most the limit (empty when there was none).
    case complete(String)
    /// More than the limit: reading stopped there and the rest was left unread.
    case tooLong

    /// `bytes` as read, or `.tooLong` for nil (the reader passed its limit).
    init(_ bytes: [UInt8]?) {
        self = bytes.map { .complete(String(decoding: $0, as: UTF8.self)) } ?? .tooLong
    }
}
