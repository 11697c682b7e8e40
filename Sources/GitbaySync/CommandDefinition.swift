/// A command of gitbay-sync: what it is called and takes (its `spec`), how it reads its own
/// part of the command line into typed values, and what it does. Each lives in a file of its
/// own under Commands/ and is listed once in `CommandRegistry.all`.
protocol CommandDefinition: Sendable, Equatable {
    /// Its words, aliases, arguments, options and help.
    static var spec: CommandSpec { get }

    /// Reads the arguments and options the command line gave it, already checked against
    /// `spec` (known options, each once, the right number of arguments); throws for a value
    /// it cannot take.
    init(_ input: CommandInput) throws(UsageError)

    /// Does what the command line asked and returns the exit code.
    func run(_ runner: CommandRunner) async throws -> ExitCode
}

extension CommandDefinition {
    /// Whether `other` is the same command with the same values.
    func isSame(as other: any CommandDefinition) -> Bool {
        guard let other = other as? Self else { return false }
        return self == other
    }
}
