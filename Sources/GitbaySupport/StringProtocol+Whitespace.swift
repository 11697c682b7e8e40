extension StringProtocol {
    /// The text without leading and trailing whitespace and line breaks.
    package func trimmingWhitespace() -> String {
        // Character.isWhitespace also covers "\r\n", which Swift holds as one character.
        guard let first = firstIndex(where: { !$0.isWhitespace }), let last = lastIndex(where: { !$0.isWhitespace }) else {
            return ""
        }
        return String(self[first...last])
    }
}
