import GitbayAPI
import GitbaySupport

/// `token create` over gitbay's SSH access, as gitbay's own CLI runs it:
/// `<ssh> [-p port] <destination> -- token create --name <name> --scope full --ttl <lifetime> --json`,
/// and the envelope read from ssh's standard output. The token is in no argument, no log line
/// and no message: only in the answer, which nothing prints.
struct SSHTokenMint: Sendable {
    let program: SSHProgram
    let destination: SSHDestination
    let name: String
    let lifetime: TokenLifetime

    /// Why no token was minted.
    enum Failure: Error, Equatable {
        /// The ssh program could not be started (`errno`).
        case cannotStart(program: String, errno: Int32)
        /// ssh ran past the timeout and was stopped.
        case timedOut(Duration, said: String)
        /// ssh failed (exit 255) and said the server refused the key.
        case keyRefused(said: String)
        /// ssh failed (exit 255) and said the server's host key is not the one it knows.
        case hostKeyRefused(said: String)
        /// ssh failed (exit 255) otherwise: no connection, an unknown host, a refused port.
        case unreachable(said: String)
        /// The server ran `token create` and refused it (`exit_code`, its message).
        case refused(exitCode: Int?, message: String)
        /// ssh ended without a gitbay answer on its standard output (its exit status).
        case notGitbay(status: Int32, said: String)
        /// The answer speaks another major protocol version.
        case protocolVersion(Int)
        /// More on standard output than any answer holds: stopped.
        case outputTooLong
        /// The user stopped it (Ctrl-C, SIGTERM) before an answer came: ssh was stopped.
        case interrupted

        /// Whether the server may have minted the token all the same: it ran the command, or
        /// the connection ended before its answer could say.
        var mayHaveMinted: Bool {
            switch self {
            // An interruption comes at ssh's prompt, in practice: a Ctrl-C in the moment the
            // server runs the command is a hair's breadth, and saying "nothing was changed"
            // with a record kept for it would not be true either.
            case .cannotStart, .keyRefused, .hostKeyRefused, .refused, .interrupted: false
            case .timedOut, .unreachable, .notGitbay, .protocolVersion, .outputTooLong: true
            }
        }
    }

    /// The remote command, each word as gitbay's SSH access reads it back: ssh joins the words
    /// with spaces into one line, which the server splits as a shell splits words.
    var remoteWords: [String] {
        ["token", "create", "--name", name, "--scope", "full", "--ttl", lifetime.text, "--json"].map(ShellWords.quoted)
    }

    /// ssh's argv.
    var argv: [String] {
        program.words + destination.arguments + ["--"] + remoteWords
    }

    /// Runs ssh to its end, killed after `timeout`, with `environment` (ssh finds its agent,
    /// its configuration and the terminal there).
    func run(environment: [String: String], timeout: Duration, shutdown: ShutdownSignal) async -> Result<MintedToken, Failure> {
        var child = ChildProgram(path: program.path, argv: argv, environment: environment, timeout: timeout)
        child.stopsOnRequest = true
        switch await child.run(shutdown: shutdown) {
        case .success(let ending):
            return Self.outcome(of: ending)
        case .failure(.cannotStart(let code)):
            return .failure(.cannotStart(program: program.path, errno: code))
        case .failure(.timedOut(let output, let errors)):
            // ssh may hang after the server's answer came: a token the server minted is used, not left valid.
            if case .success(let minted) = MintedToken.parse(output) { return .success(minted) }
            return .failure(.timedOut(timeout, said: Self.said(errors)))
        case .failure(.outputTooLong):
            return .failure(.outputTooLong)
        case .failure(.interrupted):
            return .failure(.interrupted)
        }
    }

    /// What an ended ssh gave: exit 255 is ssh's own failure, unless the server's answer came
    /// before it; anything else is the server's answer, the envelope on standard output.
    static func outcome(of ending: ChildProgram.Ending) -> Result<MintedToken, Failure> {
        let said = said(ending.errorOutput)
        if ending.status == 255 {
            // ssh failed after the server's answer came (the connection dropped before its exit
            // status): the answer stands, so the token it carries is used, not left valid.
            if case .success(let minted) = MintedToken.parse(ending.output) { return .success(minted) }
            if said.contains("Permission denied") { return .failure(.keyRefused(said: said)) }
            if said.contains("Host key verification failed") || said.contains("REMOTE HOST IDENTIFICATION HAS CHANGED") {
                return .failure(.hostKeyRefused(said: said))
            }
            return .failure(.unreachable(said: said))
        }
        switch MintedToken.parse(ending.output) {
        case .success(let minted): return .success(minted)
        case .failure(.refused(let exitCode, let message)): return .failure(.refused(exitCode: exitCode, message: bounded(message)))
        case .failure(.protocolVersion(let version)): return .failure(.protocolVersion(version))
        case .failure(.notAnEnvelope), .failure(.noToken): return .failure(.notGitbay(status: ending.status, said: said))
        }
    }

    /// The last lines ssh wrote on standard error, for a message: at most three, bounded.
    static func said(_ errorOutput: [UInt8]) -> String {
        let lines = String(decoding: errorOutput, as: UTF8.self).split(whereSeparator: \.isNewline).map { $0.trimmingWhitespace() }
        return bounded(lines.filter { !$0.isEmpty }.suffix(3).joined(separator: "; "))
    }

    /// What ssh or the server said, as it enters a message: anything token-like redacted, at
    /// most 300 characters. It stays raw otherwise: a message is escaped once, where it is printed.
    static func bounded(_ text: String) -> String {
        let redacted = GitbayError.redactingTokens(in: text)
        return redacted.count <= 300 ? redacted : String(redacted.prefix(300)) + "…"
    }
}
