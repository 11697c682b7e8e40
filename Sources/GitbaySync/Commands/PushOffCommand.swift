/// `push off <account>`.
struct PushOffCommand: AccountCommand {
    static let sendsRequests = true

    static let spec = CommandSpec(
        words: ["push", "off"], group: .pushSwitch, arguments: [.account], options: [],
        summary: "Turn the account's push notifications off (server-side).",
        discussion: "Sets `notifications settings push off`: the rows stay, the server sends nothing.",
        examples: [
            .init("No pushes from the work account's server to any of its devices", ["push", "off", "alice@gitbay.example.com"])
        ]
    )

    let account: String

    func run(_ runner: CommandRunner) async throws -> ExitCode {
        try await runner.setPush(false, account: account)
    }
}
