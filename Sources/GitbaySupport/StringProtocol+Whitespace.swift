extension StringProtocol {
    /// The text without leading and trailing whitespace and line breaks.
    package func trimmingWhitespace() -> String {
        let text = String(self)
        // Text that begins and ends with a visible ASCII character has nothing to trim: no
        // character starting or ending with one is whitespace.
        if let first = text.utf8.first, let last = text.utf8.last, (0x21...0x7E).contains(first), (0x21...0x7E).contains(last) {
            return text
        }
        // Character.isWhitespace also covers "\r\n", which Swift holds as one character.
        guard let first = text.firstIndex(where: { !$0.isWhitespace }), let last = text.lastIndex(where: { !$0.isWhitespace }) else {
            return ""
        }
        return String(text[first...last])
    }
}
