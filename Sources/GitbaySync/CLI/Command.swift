/// A parsed command line: what to do, and the global options.
public struct Invocation: Sendable, Equatable {
    public var command: Command
    public var global: GlobalOptions
}

/// Options every command takes.
public struct GlobalOptions: Sendable, Equatable {
    /// `--db PATH`.
    public var databasePath: String?
    /// `--json`: machine-readable output on stdout.
    public var json = false
    /// `--verbose` / `-v`, repeatable.
    public var verbosity = 0

    public init(databasePath: String? = nil, json: Bool = false, verbosity: Int = 0) {
        self.databasePath = databasePath
        self.json = json
        self.verbosity = verbosity
    }
}

/// Every command gitbay-sync understands.
public enum Command: Sendable, Equatable {
    /// `--help` for the program (nil) or a command (its words).
    case help(topic: [String]?)
    case version
    case login(instance: String)
    case accounts
    case removeAccount(account: String, force: Bool)
    case pause(account: String)
    case resume(account: String)
    case prefer(account: String)
    case deviceSetToken(label: String?)
    case deviceShow
    case deviceClear
    /// `run`: `now` tries accounts waiting out a backoff too; `unattended` records the run as
    /// the installed service's.
    case run(every: Duration?, concurrency: Int?, now: Bool = false, unattended: Bool = false)
    case status
    case doctor
    case devices(account: String?)
    case devicesRemove(account: String, id: Int, yes: Bool)
    case push(PushAction, account: String?)
    case resolve
    /// `force` replaces unit files that `service install` did not write.
    case serviceInstall(every: Duration?, force: Bool = false)
    /// `force` removes unit files that `service install` did not write.
    case serviceUninstall(force: Bool = false)
    case serviceShow(every: Duration?)

    public enum PushAction: String, Sendable, Equatable {
        case on, off, show
    }
}
