/// The command line of `gitbay-fake-server`, parsed without side effects.
struct Options: Equatable {
    static let usageLine =
        "USAGE: gitbay-fake-server [--port <n>] [--users <a,b,...>] [--latency-ms <n>] [--no-device-id] [--no-rate-limits]\n"
        + "       gitbay-fake-server ssh-command --port <n> --user <name>"

    static let usage = """
        \(usageLine)

        Serves a fake gitbay instance on 127.0.0.1 for demos and benchmarks. Mints one full-scope
        token per user and prints one JSON line on stdout:
          {"url":"http://127.0.0.1:PORT","tokens":{"alice":"gb_..."}}
        then serves until SIGTERM or SIGINT, or until stdin (when it is a pipe or a terminal)
        reaches end of file, so a parent script that dies takes the server down.

        Like gitbay, one device row per token on the whole instance: a `device add` of a token
        another account holds moves that row (same id) to the caller. Both per-account rate
        limits are on: the API limiter (429 with Retry-After; 120 reads, then 2 a second; 12
        writes, then one each 5 s) and the write limit (403, exit 4; 60, then 1 a second).

        OPTIONS:
          --port <n>            Port on 127.0.0.1 (default: a free one).
          --users <a,b,...>     Accounts to create, each with a token (default: alice).
          --latency-ms <n>      Delay before every answer, in milliseconds (default: 0).
          --no-device-id        Behave like gitbay v1.32.0: `device add` returns no id and
                                `device list` shows a token of 8 bytes or fewer in full.
          --no-rate-limits      Enforce neither rate limit (no gitbay does this).
          -h, --help            Show this help.

        SSH-COMMAND: the forced command of an sshd key for the tests' SSH front. Runs the
        command in $SSH_ORIGINAL_COMMAND (split into words as a shell would, with no
        expansion; see SSHCommandLine) as <name> on the fake server at 127.0.0.1:<n>, prints
        what it prints (the envelope with --json) and exits with its exit code.

        CONTROL ROUTES (no authentication):
          GET  /_fake/stats           {"requests":N,"reads":N,"writes":N,"moves":N,"devices":[...]}
                                      (API requests and row moves since the start or a reset)
          POST /_fake/reset-stats     zero the counters
          POST /_fake/down?seconds=N  close every connection for N seconds (1 to 60)
          POST /_fake/ssh             {"user","argv","stdin"}: run a command as over SSH
        """

    /// What the command line asks for.
    enum Parsed: Equatable {
        case run(Options)
        /// `ssh-command`: forward one SSH command to the fake on `port` as `user`.
        case forwardSSH(port: UInt16, user: String)
        case help
    }

    /// A command line this program does not accept.
    struct UsageError: Error, Equatable {
        let message: String
    }

    var port: UInt16 = 0
    var users: [String] = ["alice"]
    var latencyMilliseconds = 0
    var returnsDeviceID = true
    var enforceRateLimits = true

    static func parse(_ arguments: [String]) throws(UsageError) -> Parsed {
        if arguments.first == "ssh-command" { return try parseForwarding(Array(arguments.dropFirst())) }
        var options = Options()
        var remaining = arguments[...]
        func value(for flag: String) throws(UsageError) -> String {
            guard let value = remaining.popFirst() else { throw UsageError(message: "\(flag) needs a value") }
            return value
        }
        while let argument = remaining.popFirst() {
            switch argument {
            case "-h", "--help":
                return .help
            case "--port":
                let text = try value(for: argument)
                guard let port = UInt16(text) else { throw UsageError(message: "--port wants 0...65535, not '\(text)'") }
                options.port = port
            case "--users":
                let names = try value(for: argument).split(separator: ",").map(String.init)
                let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-")
                guard !names.isEmpty, names.allSatisfy({ !$0.isEmpty && $0.allSatisfy(allowed.contains) }) else {
                    throw UsageError(message: "--users wants names of letters, digits, '_', '.', '-', separated by commas")
                }
                options.users = names
            case "--latency-ms":
                let text = try value(for: argument)
                guard let milliseconds = Int(text), milliseconds >= 0 else {
                    throw UsageError(message: "--latency-ms wants a whole number of milliseconds, not '\(text)'")
                }
                options.latencyMilliseconds = milliseconds
            case "--no-device-id":
                options.returnsDeviceID = false
            case "--no-rate-limits":
                options.enforceRateLimits = false
            default:
                throw UsageError(message: "unknown option '\(argument)'")
            }
        }
        return .run(options)
    }

    /// `ssh-command --port <n> --user <name>`, both required.
    private static func parseForwarding(_ arguments: [String]) throws(UsageError) -> Parsed {
        var port: UInt16?
        var user: String?
        var remaining = arguments[...]
        while let argument = remaining.popFirst() {
            guard let value = remaining.popFirst() else { throw UsageError(message: "\(argument) needs a value") }
            switch argument {
            case "--port": port = UInt16(value)
            case "--user": user = value
            default: throw UsageError(message: "unknown option '\(argument)'")
            }
        }
        guard let port, port > 0, let user, !user.isEmpty else {
            throw UsageError(message: "ssh-command needs --port <1...65535> and --user <name>")
        }
        return .forwardSSH(port: port, user: user)
    }
}
