/// A command line that cannot be run: what is wrong, and for which command.
package struct UsageError: Error, Sendable, Equatable, CustomStringConvertible {
    package let message: String
    /// The words of the command it concerns, when known (for the usage line and the pointer to
    /// its help).
    package let commandWords: [String]?

    package init(_ message: String, command: [String]? = nil) {
        self.message = message
        self.commandWords = command
    }

    package var description: String { message }
}

/// Finds the closest of `candidates` to `word`, for "Did you mean …?".
enum NearMiss {
    static func suggestion(for word: String, among candidates: [String]) -> String? {
        let scored = candidates.map { ($0, distance(word, $0)) }.filter { $0.1 <= max(2, word.count / 3) }
        return scored.min { $0.1 < $1.1 }?.0
    }

    /// ". Did you mean '…'?" for a near miss, else nothing.
    static func hint(for word: String, among candidates: [String]) -> String {
        suggestion(for: word, among: candidates).map { ". Did you mean '\($0)'?" } ?? ""
    }

    /// Levenshtein distance.
    static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        guard !a.isEmpty else { return b.count }
        guard !b.isEmpty else { return a.count }
        var previous = Array(0...b.count)
        for i in 1...a.count {
            var current = [i] + Array(repeating: 0, count: b.count)
            for j in 1...b.count {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            previous = current
        }
        return previous[b.count]
    }
}
