/// A command line split into global options, command options and positional words.
///
/// Accepts options before or after the command words, `--opt value` and `--opt=value`, `--` to
/// end options, `-v` repeated (or `-vv`), and `-h`. Which options take a value is given, so
/// the same line can be read again with one command's options alone.
struct ArgumentTokens {
    var global = GlobalOptions()
    var positionals: [String] = []
    var options: [(name: String, value: String?)] = []
    var wantsHelp = false
    var wantsVersion = false
    /// The first mistake found; reported once the command words are known, so that its
    /// message can point at the command's usage.
    var error: String?

    init(_ arguments: [String], valueOptions: Set<String>) {
        var index = 0
        var optionsEnded = false
        while index < arguments.count {
            let token = arguments[index]
            index += 1
            if optionsEnded || token == "-" || !token.hasPrefix("-") {
                positionals.append(token)
            } else if token == "--" {
                optionsEnded = true
            } else if !token.hasPrefix("--") {
                readShortFlags(token)
            } else {
                var (name, value) = Self.split(token)
                if valueOptions.contains(name), value == nil {
                    guard index < arguments.count else {
                        note("option '\(name)' needs a value")
                        break
                    }
                    value = arguments[index]
                    index += 1
                }
                readLong(name, value)
            }
        }
    }

    /// `--name=value` as its name and value; `--name` as its name alone.
    private static func split(_ token: String) -> (String, String?) {
        guard let equals = token.firstIndex(of: "=") else { return (token, nil) }
        return (String(token[..<equals]), String(token[token.index(after: equals)...]))
    }

    /// Short flags: -h, -v, -vv.
    private mutating func readShortFlags(_ token: String) {
        let flags = token.dropFirst()
        if let unknown = flags.first(where: { $0 != "h" && $0 != "v" }) {
            // `-json` is a long option with one dash too few, not the flags j, s, o, n.
            let long = "-" + token
            note(
                CommandRegistry.longOptionNames.contains(long)
                    ? "unknown option '\(token)'. Did you mean '\(long)'?"
                    : "unknown option '-\(unknown)'; the short options are -h and -v")
            return
        }
        for flag in flags {
            if flag == "h" { wantsHelp = true } else { global.verbosity += 1 }
        }
    }

    private mutating func readLong(_ name: String, _ value: String?) {
        if value != nil, GlobalOptions.flagNames.contains(name) {
            note("option '\(name)' takes no value")
            return
        }
        switch name {
        case "--json": global.json = true
        case "--verbose": global.verbosity += 1
        case "--help": wantsHelp = true
        case "--version": wantsVersion = true
        case "--db":
            guard let value, !value.isEmpty else {
                note("option '--db' needs a path to the state database")
                return
            }
            global.databasePath = value
        default: options.append((name, value))
        }
    }

    /// Keeps the first mistake.
    private mutating func note(_ message: String) {
        if error == nil { error = message }
    }
}
