import Foundation

/// The dispatcher: checks that apply to every command, then each command's own behaviour.
extension FakeState {
    /// Longest token `device add` accepts, in bytes.
    static let deviceTokenLimit = 512
    /// How many of a token's bytes `device list` shows.
    static let shownTokenBytes = 8

    /// Who runs a command: an API token's account, or an SSH key's user.
    struct Caller: Sendable {
        let user: String
        let scope: TokenScope
        /// The bearer of an API request; nil over SSH.
        let apiToken: String?
    }

    /// Runs `argv` for `caller`. The router has already stripped `--json`, refused an empty
    /// argv and, on the read route, any command that is unknown or changes state.
    mutating func dispatch(argv: [String], stdin: String?, caller: Caller, instant: ContinuousClock.Instant) -> CommandOutcome {
        guard let (command, arguments) = GitbayCommand.parse(argv) else {
            return .failure(exitCode: 2, Self.unknownCommandMessage(argv))
        }
        if command.changesState {
            if caller.scope == .read {
                return .failure(
                    exitCode: 4,
                    "this token is read-only; run `\(command.name)` over SSH or mint one with --scope full")
            }
            if modes.enforceRateLimits {
                let wait = limits[caller.user, default: AccountLimits(now: instant)].admitWrite(at: instant)
                if let wait {
                    return .failure(exitCode: 4, Self.writeLimitMessage(wait: wait))
                }
            }
        }
        return run(command, arguments: arguments, stdin: stdin, caller: caller)
    }

    /// The error for a command gitbay does not know, from the dispatcher and the read route alike.
    static func unknownCommandMessage(_ argv: [String]) -> String {
        "unknown command \"\(argv.joined(separator: " "))\"; see `help`"
    }

    /// The dispatcher's write limit, the wait printed as a Go duration (`2s`, `1m1s`).
    static func writeLimitMessage(wait: Duration) -> String {
        "too many writes: \(AccountLimits.writesPerMinute) a minute per account; try again in \(GoText.duration(wait))"
    }

    private mutating func run(_ command: GitbayCommand, arguments: [String], stdin: String?, caller: Caller) -> CommandOutcome {
        let flags: [String: String]
        let positionals: [String]
        switch Self.parseFlags(arguments, allowed: command.flags) {
        case .success(let parsed): (flags, positionals) = parsed
        case .failure(let usage): return .failure(exitCode: 2, usage.message)
        }
        let user = caller.user

        switch command {
        case .whoami:
            guard positionals.isEmpty else { return Self.noArguments(command) }
            return .success(.object([("username", .string(user)), ("admin", .bool(false)), ("key_scope", .string("full"))]))
        case .deviceAdd:
            guard positionals.isEmpty else {
                return .failure(exitCode: 2, "`\(command.name)` takes no arguments; send the device token on stdin")
            }
            return addDevice(stdin: stdin, label: flags["--label"] ?? "", user: user, apiToken: caller.apiToken)
        case .deviceList:
            guard positionals.isEmpty else { return Self.noArguments(command) }
            return .success(deviceList(of: user))
        case .deviceRemove:
            guard positionals.count == 1 else {
                return .failure(exitCode: 2, "usage: \(command.name) <id>")
            }
            return removeDevice(positionals[0], user: user, apiToken: caller.apiToken)
        case .settingsShow:
            guard positionals.isEmpty else { return Self.noArguments(command) }
            return .success(settingsJSON(of: user))
        case .settingsPush:
            guard positionals.count == 1, ["on", "off"].contains(positionals[0]) else {
                return .failure(exitCode: 2, "usage: \(command.name) on|off")
            }
            setPush(positionals[0] == "on", for: user)
            return .success(settingsJSON(of: user))
        case .tokenCreate, .tokenList, .tokenRevoke:
            return runToken(command, flags: flags, positionals: positionals, user: user)
        }
    }

    /// `notifications device add` with its arguments checked: the token from stdin, upserted.
    private mutating func addDevice(stdin: String?, label: String, user: String, apiToken: String?) -> CommandOutcome {
        guard modes.pushEnabled else {
            return .failure(
                exitCode: 1,
                "this instance does not send push notifications ([push] enabled = false); ask an admin")
        }
        let deviceToken = (stdin ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        guard !deviceToken.isEmpty else { return .failure(exitCode: 2, "no device token on stdin") }
        guard deviceToken.utf8.count <= Self.deviceTokenLimit else {
            return .failure(exitCode: 2, "device token is too long")
        }
        let id = upsertDevice(owner: user, token: deviceToken, label: label, now: now, apiToken: apiToken)
        // v1.32.0 answered without the id.
        return .success(
            modes.returnsDeviceID
                ? .object([("id", .number(id)), ("status", .string("registered"))])
                : .object([("status", .string("registered"))]))
    }

    /// `notifications device list`: the rows `user` owns, id ascending.
    private func deviceList(of user: String) -> JSONValue {
        .array(
            devices.filter { $0.owner == user }.map { row -> JSONValue in
                .object([
                    ("id", .number(row.id)),
                    ("label", .string(row.label)),
                    ("token", .string(Self.displayedToken(row.token, shortInFull: !modes.returnsDeviceID))),
                    ("added", .string(Self.timestamp(row.added))),
                ])
            })
    }

    /// `notifications device remove <id>`.
    private mutating func removeDevice(_ argument: String, user: String, apiToken: String?) -> CommandOutcome {
        guard let id = Int(argument) else {
            return .failure(exitCode: 2, "invalid device id \"\(argument)\"; see `notifications device list`")
        }
        // Someone else's row answers exactly like a missing one.
        guard devices.contains(where: { $0.id == id && $0.owner == user }) else {
            return .failure(exitCode: 3, "no such device; see `notifications device list`")
        }
        deleteDevice(id: id, apiToken: apiToken)
        return .success(.object([("status", .string("removed"))]))
    }

    /// A token as `device list` shows it: the first 8 bytes and `…`, written as Go's JSON
    /// encoder writes a cut character (one U+FFFD per stray byte). A token of 8 bytes or fewer
    /// is `(short token)`, or in full with `shortInFull` (v1.32.0).
    static func displayedToken(_ token: String, shortInFull: Bool) -> String {
        let bytes = Array(token.utf8)
        guard bytes.count > shownTokenBytes else { return shortInFull ? token : "(short token)" }
        return GoText.jsonString(utf8: bytes.prefix(shownTokenBytes)) + "\u{2026}"
    }

    private func settingsJSON(of user: String) -> JSONValue {
        let settings = users[user] ?? Settings()
        return .object([("mail", .bool(settings.mail)), ("watch", .bool(settings.watch)), ("push", .bool(settings.push))])
    }

    static func noArguments(_ command: GitbayCommand) -> CommandOutcome {
        .failure(exitCode: 2, "`\(command.name)` takes no arguments")
    }

    private struct UsageFailure: Error {
        let message: String
    }

    /// Splits `--flag value` pairs from positionals; `--flag=value` and unlisted flags are errors.
    private static func parseFlags(
        _ arguments: [String], allowed: Set<String>
    ) -> Result<(flags: [String: String], positionals: [String]), UsageFailure> {
        var flags: [String: String] = [:]
        var positionals: [String] = []
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            guard argument.hasPrefix("-"), argument.count > 1 else {
                positionals.append(argument)
                continue
            }
            guard allowed.contains(argument) else { return .failure(UsageFailure(message: "unknown flag: \(argument)")) }
            guard index < arguments.count else {
                return .failure(UsageFailure(message: "flag needs an argument: \(argument)"))
            }
            flags[argument] = arguments[index]
            index += 1
        }
        return .success((flags, positionals))
    }

    /// UTC, milliseconds, `Z`: `2026-09-20T14:03:07.123Z`.
    static func timestamp(_ date: Date) -> String {
        // Stored dates are whole milliseconds already; rounding absorbs the binary fraction.
        let milliseconds = Int64((date.timeIntervalSince1970 * 1000).rounded())
        var seconds = time_t(milliseconds / 1000)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func padded(_ value: some BinaryInteger, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        return padded(parts.tm_year + 1900, 4) + "-" + padded(parts.tm_mon + 1, 2) + "-" + padded(parts.tm_mday, 2)
            + "T" + padded(parts.tm_hour, 2) + ":" + padded(parts.tm_min, 2) + ":" + padded(parts.tm_sec, 2)
            + "." + padded(milliseconds % 1000, 3) + "Z"
    }
}
