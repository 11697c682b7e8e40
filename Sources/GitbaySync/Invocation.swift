/// A parsed command line: what to do, and the global options.
struct Invocation: Sendable, Equatable {
    enum Request: Sendable, Equatable {
        /// `--help` for the program (nil) or a command or group (its words).
        case help(topic: [String]?)
        case version
        case command(any CommandDefinition)

        static func == (lhs: Request, rhs: Request) -> Bool {
            switch (lhs, rhs) {
            case (.help(let a), .help(let b)): a == b
            case (.version, .version): true
            case (.command(let a), .command(let b)): a.isSame(as: b)
            default: false
            }
        }
    }

    var request: Request
    var global: GlobalOptions
}
