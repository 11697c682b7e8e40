extension Array where Element == UInt8 {
    /// Appends the UTF-8 bytes of `text`, copied from the string's storage at once: a byte at
    /// a time through its view costs several times more. Requests and output are built as
    /// bytes this way, then made a string once.
    package mutating func append(utf8Of text: String) {
        var text = text
        text.withUTF8 { append(contentsOf: $0) }
    }
}
