/// `version`, the same as `--version`.
struct VersionCommand: PlainCommand {
    static let spec = CommandSpec(
        words: ["version"], group: .shellAndReference, arguments: [], options: [], summary: "Show the version.",
        discussion: "The same as `gitbay-sync --version`: `gitbay-sync \(HelpText.version)`, or {\"version\":\"\(HelpText.version)\"} with --json.",
        examples: [
            .init("Show the version", ["version"]),
            .init("The version alone, for a script", ["version", "--json"], after: "| jq -r .version"),
        ]
    )

    func run(_ runner: CommandRunner) async throws -> ExitCode {
        try await runner.execute(.version)
    }
}
