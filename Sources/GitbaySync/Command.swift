/// A parsed command line: what to do, and the global options.
package struct Invocation: Sendable, Equatable {
    package var command: Command
    package var global: GlobalOptions
}

/// Options every command takes.
package struct GlobalOptions: Sendable, Equatable {
    /// `--db PATH`.
    package var databasePath: String?
    /// `--json`: machine-readable output on stdout.
    package var json = false
    /// `--verbose` / `-v`, repeatable.
    package var verbosity = 0

    package init(databasePath: String? = nil, json: Bool = false, verbosity: Int = 0) {
        self.databasePath = databasePath
        self.json = json
        self.verbosity = verbosity
    }
}

/// Every command gitbay-sync understands.
package enum Command: Sendable, Equatable {
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
    /// `completions SHELL`: the shell's completion script.
    case completions(Shell)
    /// `man`: the manual page.
    case man

    package enum PushAction: String, Sendable, Equatable {
        case on, off, show
    }
}
