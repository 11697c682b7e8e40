/// What an unknown first word most likely meant, among the commands alone: the words of the
/// line after it are arguments, so they never decide.
///
/// In order: the commands and aliases the word begins (`remove` for `remove-account`), the
/// commands whose second word or alias it is (`install` for `service install`), a near miss
/// among the first words (`stauts`), a near miss among the second words (`set-tokn`).
enum CommandSuggestion {
    /// The most commands a suggestion names; more would not be a suggestion.
    static let most = 3

    static func candidates(forCommand word: String) -> [String] {
        let firstWords = CommandRegistry.commandNames
        let begun = firstWords.filter { $0 != word && $0.hasPrefix(word) }
        if word.count >= 2, !begun.isEmpty, begun.count <= most { return begun }
        let twoWords = CommandRegistry.specs.filter { $0.words.count == 2 }.flatMap { [$0.words] + $0.aliasWords }
        let second = twoWords.filter { $0[1] == word }.map { $0.joined(separator: " ") }
        if !second.isEmpty, second.count <= most { return second }
        if let near = NearMiss.suggestion(for: word, among: firstWords) { return [near] }
        let seconds = twoWords.map { $0[1] }
        if let near = NearMiss.suggestion(for: word, among: seconds) {
            return twoWords.filter { $0[1] == near }.prefix(most).map { $0.joined(separator: " ") }
        }
        return []
    }

    /// ". Did you mean 'remove-account'?" (or 'a', 'b' or 'c'), else nothing.
    static func hint(forCommand word: String) -> String {
        let names = candidates(forCommand: word).map { "'\($0)'" }
        guard let last = names.last else { return "" }
        let listed = names.count == 1 ? last : names.dropLast().joined(separator: ", ") + " or " + last
        return ". Did you mean \(listed)?"
    }
}
