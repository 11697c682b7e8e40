/// `push on <account>`.
struct PushOnCommand: AccountCommand {
    static let sendsRequests = true

    static let spec = CommandSpec(
        words: ["push", "on"], group: .pushSwitch, arguments: [.account], options: [],
        summary: "Turn the account's push notifications on (server-side).",
        discussion: "Sets `notifications settings push on` for the account.",
        examples: [
            .init("Let the work account's server send pushes again", ["push", "on", "alice@gitbay.example.com"])
        ]
    )

    let account: String

    func run(_ runner: CommandRunner) async throws -> ExitCode {
        try await runner.setPush(true, account: account)
    }
}
