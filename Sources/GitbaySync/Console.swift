import GitbaySupport
import Synchronization

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The process's standard streams, as the commands see them; tests substitute their own.
package struct Console: Sendable {
    /// Reads standard input to its end, stopping as soon as it holds more than `limit` bytes.
    package var readInput: @Sendable (_ limit: Int) -> BoundedInput
    /// Whether standard input is a terminal (a person typing).
    package var inputIsTerminal: Bool
    /// Asks on the terminal without echo and reads one line of at most `limit` bytes; nil
    /// when there is no terminal.
    package var readSecret: @Sendable (_ prompt: String, _ limit: Int) -> BoundedInput?
    /// Asks a yes/no question on the terminal.
    package var confirm: @Sendable (_ question: String) -> Bool
    package var out: @Sendable (String) -> Void
    package var err: @Sendable (String) -> Void
    /// The first write to `out` or `err` that did not go through, if any.
    package var outputFailure: @Sendable () -> OutputFailure?
    /// Whether standard error is a terminal: a person watching, to whom a slow step says what
    /// it is doing (`CommandRunner.progress`).
    package var errorIsTerminal = false
    /// Whether standard output is a terminal: a person reading, for whom text is coloured
    /// (`TextStyle`) and fitted to the width.
    package var outputIsTerminal = false
    /// Writes to standard error as it is, with no line break added: the status line a terminal
    /// rewrites in place (`RunProgressOutput`).
    package var errRaw: @Sendable (String) -> Void = { _ in }

    package init(
        readInput: @escaping @Sendable (Int) -> BoundedInput, inputIsTerminal: Bool,
        readSecret: @escaping @Sendable (String, Int) -> BoundedInput?, confirm: @escaping @Sendable (String) -> Bool,
        out: @escaping @Sendable (String) -> Void, err: @escaping @Sendable (String) -> Void,
        outputFailure: @escaping @Sendable () -> OutputFailure? = { nil }
    ) {
        self.readInput = readInput
        self.inputIsTerminal = inputIsTerminal
        self.readSecret = readSecret
        self.confirm = confirm
        self.out = out
        self.err = err
        self.outputFailure = outputFailure
    }

    /// The longest answer to a yes/no question that is read; a longer one is a no.
    static let answerLimit = 64

    /// The real standard streams. A hidden prompt registers its cleanup with `shutdown`, so a
    /// signal that ends the process there turns echo back on first.
    package static func standard(shutdown: ShutdownSignal) -> Console {
        let streams = WrittenStreams()
        var console = Console(
            readInput: { limit in BoundedInput(StandardStreams.readAll(STDIN_FILENO, limit: limit)) },
            inputIsTerminal: isatty(STDIN_FILENO) == 1,
            readSecret: { prompt, limit in
                guard isatty(STDIN_FILENO) == 1 else { return nil }
                var settings = termios()
                let canSilence = tcgetattr(STDIN_FILENO, &settings) == 0
                let restore: @Sendable () -> Void = { [settings] in
                    // TCSAFLUSH drops what was typed but not read: a half-typed secret, or the
                    // rest of a paste past the limit, never reaches whatever reads next.
                    var settings = settings
                    if canSilence { tcsetattr(STDIN_FILENO, TCSAFLUSH, &settings) }
                    StandardStreams.send("\n", to: STDERR_FILENO)
                }
                // Echo goes off before the prompt shows, so nothing typed after it is echoed.
                let silence = {
                    var silent = settings
                    silent.c_lflag &= ~tcflag_t(ECHO)
                    if canSilence { tcsetattr(STDIN_FILENO, TCSAFLUSH, &silent) }
                }
                return shutdown.withCleanup(setUp: silence, onSignal: restore) {
                    defer { restore() }
                    streams.err(prompt)
                    return BoundedInput(StandardStreams.readLine(STDIN_FILENO, limit: limit))
                }
            },
            confirm: { question in
                guard isatty(STDIN_FILENO) == 1 else { return false }
                streams.err(question + " [y/N] ")
                guard let line = StandardStreams.readLine(STDIN_FILENO, limit: answerLimit) else {
                    tcflush(STDIN_FILENO, TCIFLUSH)
                    return false
                }
                let answer = String(decoding: line, as: UTF8.self).lowercased()
                return answer == "y" || answer == "yes"
            },
            out: { line in streams.out(line + "\n") },
            err: { line in streams.err(line + "\n") },
            outputFailure: { streams.firstFailure.withLock { $0 } }
        )
        console.errorIsTerminal = isatty(STDERR_FILENO) == 1
        console.outputIsTerminal = isatty(STDOUT_FILENO) == 1
        console.errRaw = { text in streams.err(text) }
        return console
    }
}

/// Writes to the real stdout and stderr, keeping the first failure for the exit code.
private final class WrittenStreams: Sendable {
    let firstFailure = Mutex<OutputFailure?>(nil)

    func out(_ text: String) { send(text, to: STDOUT_FILENO, stream: "standard output") }
    func err(_ text: String) { send(text, to: STDERR_FILENO, stream: "standard error") }

    private func send(_ text: String, to descriptor: Int32, stream: String) {
        guard let reason = StandardStreams.send(text, to: descriptor) else { return }
        firstFailure.withLock { first in
            if first == nil { first = OutputFailure(stream: stream, reason: reason) }
        }
    }
}
