/// `push on <account>`.
struct PushOnCommand: CommandDefinition {
    static let spec = CommandSpec(
        words: ["push", "on"], arguments: [.account], options: [], summary: "Turn the account's push notifications on (server-side).",
        discussion: "Sets `notifications settings push on` for the account."
    )

    let account: String

    init(account: String) {
        self.account = account
    }

    init(_ input: CommandInput) throws(UsageError) {
        account = try input.required(.account)
    }

    func run(_ runner: CommandRunner) async throws -> ExitCode {
        try await runner.setPush(true, account: account)
    }
}
