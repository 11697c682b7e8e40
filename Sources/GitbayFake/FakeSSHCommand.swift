/// One command the fake ran for its SSH front (`POST /_fake/ssh`), for tests to inspect.
public struct FakeSSHCommand: Sendable, Equatable {
    /// The gitbay account the key belongs to.
    public let user: String
    /// The argv as it arrived, `--json` included.
    public let argv: [String]
    /// What the client sent on its standard input, nil when the command takes none.
    public let stdin: String?
    /// What the command ended with, which ssh exits with.
    public let exitCode: Int

    public init(user: String, argv: [String], stdin: String?, exitCode: Int) {
        self.user = user
        self.argv = argv
        self.stdin = stdin
        self.exitCode = exitCode
    }
}
