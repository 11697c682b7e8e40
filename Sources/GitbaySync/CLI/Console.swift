import FoundationEssentials
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The process's standard streams, as the commands see them; tests substitute their own.
public struct Console: Sendable {
    /// Reads all of standard input (nil when there is none).
    public var readInput: @Sendable () -> String?
    /// Whether standard input is a terminal (a person typing).
    public var inputIsTerminal: Bool
    /// Asks on the terminal without echo; nil when there is no terminal.
    public var readSecret: @Sendable (_ prompt: String) -> String?
    /// Asks a yes/no question on the terminal.
    public var confirm: @Sendable (_ question: String) -> Bool
    public var out: @Sendable (String) -> Void
    public var err: @Sendable (String) -> Void

    public init(
        readInput: @escaping @Sendable () -> String?, inputIsTerminal: Bool,
        readSecret: @escaping @Sendable (String) -> String?, confirm: @escaping @Sendable (String) -> Bool,
        out: @escaping @Sendable (String) -> Void, err: @escaping @Sendable (String) -> Void
    ) {
        self.readInput = readInput
        self.inputIsTerminal = inputIsTerminal
        self.readSecret = readSecret
        self.confirm = confirm
        self.out = out
        self.err = err
    }

    /// The real standard streams. A hidden prompt registers its cleanup with `shutdown`, so a
    /// signal that ends the process there turns echo back on first.
    public static func standard(shutdown: ShutdownSignal) -> Console {
        Console(
            readInput: {
                String(decoding: StandardStreams.readAll(STDIN_FILENO), as: UTF8.self)
            },
            inputIsTerminal: isatty(STDIN_FILENO) == 1,
            readSecret: { prompt in
                guard isatty(STDIN_FILENO) == 1 else { return nil }
                StandardStreams.send(prompt, to: STDERR_FILENO)
                var settings = termios()
                tcgetattr(STDIN_FILENO, &settings)
                let restore: @Sendable () -> Void = { [settings] in
                    // Flushing drops what was typed but not read: a half-typed secret never
                    // reaches whatever reads the terminal next.
                    var settings = settings
                    tcsetattr(STDIN_FILENO, TCSAFLUSH, &settings)
                    StandardStreams.send("\n", to: STDERR_FILENO)
                }
                return shutdown.withCleanup(onSignal: restore) {
                    var silent = settings
                    silent.c_lflag &= ~tcflag_t(ECHO)
                    tcsetattr(STDIN_FILENO, TCSAFLUSH, &silent)
                    defer { restore() }
                    return readLine(strippingNewline: true)
                }
            },
            confirm: { question in
                guard isatty(STDIN_FILENO) == 1 else { return false }
                StandardStreams.send(question + " [y/N] ", to: STDERR_FILENO)
                let answer = readLine(strippingNewline: true)?.lowercased() ?? ""
                return answer == "y" || answer == "yes"
            },
            out: { line in StandardStreams.send(line + "\n", to: STDOUT_FILENO) },
            err: { line in StandardStreams.send(line + "\n", to: STDERR_FILENO) }
        )
    }
}
