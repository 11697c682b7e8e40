import Foundation
import GitbayFake
import TestSupport
import TransportSupport

@testable import GitbayAPI
@testable import GitbayReconcile
@testable import GitbayState
@testable import GitbaySupport
@testable import GitbaySync
@testable import PushResolve

/// Runs gitbay-sync's command line in this process against a private state folder, with
/// captured streams, short client timeouts and no backoff waits.
final class CLIHarness: Sendable {

    let folder: TemporaryDirectory
    let environment: [String: String]

    init() throws {
        folder = try TemporaryDirectory()
        environment = [
            "HOME": folder.path,
            "XDG_STATE_HOME": folder.path + "/state",
            "XDG_CONFIG_HOME": folder.path + "/config",
            "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin",
        ]
    }

    /// A harness whose environment is exactly what `make` returns for the private folder's path.
    init(environment make: (String) -> [String: String]) throws {
        folder = try TemporaryDirectory()
        environment = make(folder.path)
    }

    /// The database the commands use when given no --db.
    var databasePath: String { StateLocation.resolve(explicitPath: nil, environment: environment).databasePath }

    static let client = ClientConfiguration(
        transport: TransportConfiguration(connectTimeout: .seconds(2), requestTimeout: .seconds(3), maxResponseBytes: 1 << 20),
        retry: RetryPolicy(maxAttempts: 2, baseDelay: .zero, maxDelay: .zero, maxRetryAfter: .seconds(1), jitter: .none),
        http: ServerTransport.shared
    )

    /// Runs `arguments`; `stdin` is what standard input holds (nil: nothing), `terminal` makes
    /// stdin look like a terminal, `confirm` answers every confirmation question (each is kept
    /// in the result's `questions`).
    func run(
        _ arguments: [String], stdin: String? = nil, terminal: Bool = false, confirm: Bool = false,
        hookTimeout: Duration = .seconds(5),
        client: ClientConfiguration = CLIHarness.client, extraEnvironment: [String: String] = [:],
        adjust: (inout CLIContext) -> Void = { _ in }
    ) async -> CLIResult {
        let out = Lines()
        let err = Lines()
        let questions = Lines()
        let prompts = Lines()
        // Bounded like the real streams: more than the limit is `.tooLong`.
        let bounded: @Sendable (Int) -> BoundedInput = { limit in
            let text = stdin ?? ""
            return text.utf8.count > limit ? .tooLong : .complete(text)
        }
        let console = Console(
            readInput: bounded, inputIsTerminal: terminal,
            readSecret: { prompt, limit in
                guard terminal else { return nil }
                prompts.append(prompt)
                return bounded(limit)
            },
            confirm: { question in
                questions.append(question)
                return confirm
            },
            out: { out.append($0) }, err: { err.append($0) }
        )
        var context = CLIContext(
            environment: environment.merging(extraEnvironment) { $1 }, console: console, client: client,
            hookTimeout: hookTimeout
        )
        // Help and usage lines as wide as an 80-column screen, whatever terminal runs the tests.
        context.terminalColumns = { _ in nil }
        // No systemd runs the tests' commands, whatever runs the machine; a test says otherwise.
        context.systemdBooted = { false }
        adjust(&context)
        let code = await GitbaySyncCLI.run(arguments: arguments, context: context)
        return CLIResult(code: code, out: out.text, err: err.text, questions: questions.all, prompts: prompts.all)
    }

    /// Signs in `user` on `server` with a fresh full-scope token; returns the account name.
    @discardableResult
    func login(_ server: FakeGitbayServer, _ user: String) async throws -> String {
        let token = server.mintToken(for: user)
        let result = await run(["login", server.baseURL], stdin: token + "\n")
        guard result.code == 0 else { throw LoginFailed(result: result) }
        return "\(user)@127.0.0.1:\(server.port)"
    }

    struct LoginFailed: Error { let result: CLIResult }

    /// Opens the state database directly, for assertions.
    func store() async throws -> StateStore {
        try await StateStore.open(StateLocation(databasePath: databasePath))
    }
}

/// Lines written by a stream, collected in order.
final class Lines: Sendable {
    private let lines = LockedBox<[String]>([])

    func append(_ line: String) { lines.mutate { $0.append(line) } }
    var all: [String] { lines.value }
    var text: String { all.joined(separator: "\n") }
}

/// A value guarded by a lock.
///
/// `@unchecked Sendable` invariant: `stored` is only touched under `lock`.
final class LockedBox<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value

    init(_ value: Value) { stored = value }

    var value: Value { lock.withLock { stored } }
    func mutate(_ body: (inout Value) -> Void) { lock.withLock { body(&stored) } }
}
