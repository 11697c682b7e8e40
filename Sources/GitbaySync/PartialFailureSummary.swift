import GitbaySupport

/// How a command that works account by account ends its report on stderr when some of the
/// accounts failed: one `Error:` line per failure, then one line that counts and names them,
/// followed by what happens next when the command knows.
struct PartialFailureSummary {
    /// Each failed account and what went wrong, as the `Error:` line says it.
    let failures: [(account: String, error: String)]
    /// How many accounts the command worked on.
    let total: Int

    var isEmpty: Bool { failures.isEmpty }

    /// The lines for stderr, nothing when no account failed; `advice` follows the count as it
    /// is given, its outside text escaped by the caller: escaped again, the `\` of a printed
    /// command's quoting (`'\''`) would end the quote early.
    func lines(advice: String? = nil) -> [String] {
        guard !failures.isEmpty else { return [] }
        let noun = total == 1 ? "account" : "accounts"
        let names = failures.map { TerminalText.escaped($0.account) }.joined(separator: ", ")
        let last = "\(failures.count) of \(total) \(noun) failed: \(names)." + (advice.map { " " + $0 } ?? "")
        return failures.map { "Error: \(escaped: $0.error)" } + [last]
    }
}
