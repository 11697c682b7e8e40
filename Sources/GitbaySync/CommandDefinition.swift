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

    /// Whether the command talks to servers, so that it stops before doing anything when
    /// requests cannot be sent at all (libcurl missing). False unless a command says so.
    static var sendsRequests: Bool { get }
}

extension CommandDefinition {
    static var sendsRequests: Bool { false }

    /// Whether `other` is the same command with the same values.
    func isSame(as other: any CommandDefinition) -> Bool {
        guard let other = other as? Self else { return false }
        return self == other
    }
}

/// A command whose one argument is an account (`pause`, `resume`, `prefer`, `push on|off`).
protocol AccountCommand: CommandDefinition {
    var account: String { get }
    init(account: String)
}

extension AccountCommand {
    init(_ input: CommandInput) throws(UsageError) {
        self.init(account: try input.required(.account))
    }
}

/// A command that takes no argument and no option of its own.
protocol PlainCommand: CommandDefinition {
    init()
}

extension PlainCommand {
    init(_ input: CommandInput) throws(UsageError) {
        self.init()
    }
}

/// A command that lists every account, or only the one its optional argument names
/// (`devices`, `push show`).
protocol ListingCommand: CommandDefinition {
    var account: String? { get }
    init(account: String?)
}

extension ListingCommand {
    init(_ input: CommandInput) throws(UsageError) {
        self.init(account: input.value(.onlyAccount))
    }
}
