import FoundationEssentials
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The process's standard streams, as the commands see them; tests substitute their own.
public struct Console: Sendable {
    /// Reads standard input to its end, stopping as soon as it holds more than `limit` bytes.
    public var readInput: @Sendable (_ limit: Int) -> BoundedInput
    /// Whether standard input is a terminal (a person typing).
    public var inputIsTerminal: Bool
    /// Asks on the terminal without echo and reads one line of at most `limit` bytes; nil
    /// when there is no terminal.
    public var readSecret: @Sendable (_ prompt: String, _ limit: Int) -> BoundedInput?
    /// Asks a yes/no question on the terminal.
    public var confirm: @Sendable (_ question: String) -> Bool
    public var out: @Sendable (String) -> Void
    public var err: @Sendable (String) -> Void

    public init(
        readInput: @escaping @Sendable (Int) -> BoundedInput, inputIsTerminal: Bool,
        readSecret: @escaping @Sendable (String, Int) -> BoundedInput?, confirm: @escaping @Sendable (String) -> Bool,
        out: @escaping @Sendable (String) -> Void, err: @escaping @Sendable (String) -> Void
    ) {
        self.readInput = readInput
        self.inputIsTerminal = inputIsTerminal
        self.readSecret = readSecret
        self.confirm = confirm
        self.out = out
        self.err = err
    }

    /// The longest answer to a yes/no question that is read; a longer one is a no.
    static let answerLimit = 64

    /// The real standard streams.
    public static var standard: Console {
        Console(
            readInput: { limit in BoundedInput(StandardStreams.readAll(STDIN_FILENO, limit: limit)) },
            inputIsTerminal: isatty(STDIN_FILENO) == 1,
            readSecret: { prompt, limit in
                guard isatty(STDIN_FILENO) == 1 else { return nil }
                var settings = termios()
                let canSilence = tcgetattr(STDIN_FILENO, &settings) == 0
                var silent = settings
                silent.c_lflag &= ~tcflag_t(ECHO)
                // Echo goes off before the prompt shows, so nothing typed after it is echoed.
                if canSilence { tcsetattr(STDIN_FILENO, TCSAFLUSH, &silent) }
                defer {
                    // TCSAFLUSH also discards what was typed past the limit, so the shell
                    // does not take the rest of a long paste as a command.
                    if canSilence { tcsetattr(STDIN_FILENO, TCSAFLUSH, &settings) }
                    StandardStreams.send("\n", to: STDERR_FILENO)
                }
                StandardStreams.send(prompt, to: STDERR_FILENO)
                return BoundedInput(StandardStreams.readLine(STDIN_FILENO, limit: limit))
            },
            confirm: { question in
                guard isatty(STDIN_FILENO) == 1 else { return false }
                StandardStreams.send(question + " [y/N] ", to: STDERR_FILENO)
                guard let line = StandardStreams.readLine(STDIN_FILENO, limit: answerLimit) else {
                    tcflush(STDIN_FILENO, TCIFLUSH)
                    return false
                }
                let answer = String(decoding: line, as: UTF8.self).lowercased()
                return answer == "y" || answer == "yes"
            },
            out: { line in StandardStreams.send(line + "\n", to: STDOUT_FILENO) },
            err: { line in StandardStreams.send(line + "\n", to: STDERR_FILENO) }
        )
    }
}
