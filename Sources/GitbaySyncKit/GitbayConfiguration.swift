import GitbayAPI
import GitbayReconcile
import GitbaySupport

/// The limits the engine keeps to, per request and per account.
public struct GitbayConfiguration: Sendable, Equatable {
    /// How long connecting may take.
    public var connectTimeout: Duration
    /// How long a whole request may take, connecting included.
    public var requestTimeout: Duration
    /// How long all of an account's requests may take together in one run, retries and their
    /// waits included; nil: no such limit.
    public var accountDeadline: Duration?
    /// Attempts per request in all, the first included; 1 never retries.
    public var attempts: Int
    /// How many accounts are in flight at once.
    public var concurrency: Int
    /// The Data Protection class the state database is kept in on Apple's platforms; nil
    /// leaves the system's default. No effect on Linux.
    public var fileProtection: GitbayFileProtection?

    public init(
        connectTimeout: Duration = .seconds(10), requestTimeout: Duration = .seconds(30), accountDeadline: Duration? = .seconds(30),
        attempts: Int = 3, concurrency: Int = 16, fileProtection: GitbayFileProtection? = nil
    ) {
        precondition(connectTimeout > .zero && requestTimeout > .zero, "timeouts must be positive")
        precondition(accountDeadline.map { $0 > .zero } ?? true, "a deadline must be positive")
        precondition(attempts >= 1, "attempts count the first one")
        precondition(concurrency >= 1, "at least one account runs at a time")
        self.connectTimeout = connectTimeout
        self.requestTimeout = requestTimeout
        self.accountDeadline = accountDeadline
        self.attempts = attempts
        self.concurrency = concurrency
        self.fileProtection = fileProtection
    }

    /// The client settings these limits make, over `transport`.
    func client(over transport: any HTTPTransport) -> ClientConfiguration {
        ClientConfiguration(
            transport: TransportConfiguration(connectTimeout: connectTimeout, requestTimeout: requestTimeout),
            retry: RetryPolicy(maxAttempts: attempts), http: transport, deadline: accountDeadline)
    }
}

/// One log record the engine hands the app: a constant message with stable dotted field
/// names (`account.id`, `http.status`). No record carries a token.
public struct GitbayLogRecord: Sendable {
    /// How much it matters.
    public enum Level: Int, Sendable, Comparable {
        case trace, debug, info, notice, warning, error

        public static func < (lhs: Level, rhs: Level) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    public let level: Level
    /// What happened, e.g. `run.history.unrecorded`.
    public let message: String
    /// Its fields, by name.
    public let fields: [String: String]
}

/// What the app does with the engine's log records (hand them to `os.Logger` or swift-log),
/// and the least level it wants.
public struct GitbayLogHandler: Sendable {
    public let minimumLevel: GitbayLogRecord.Level
    let handle: @Sendable (GitbayLogRecord) -> Void

    public init(minimumLevel: GitbayLogRecord.Level = .info, _ handle: @escaping @Sendable (GitbayLogRecord) -> Void) {
        self.minimumLevel = minimumLevel
        self.handle = handle
    }

    /// The engine's logger, writing to this handler.
    var logger: Logger {
        Logger(minimumLevel: Logger.Level(rawValue: minimumLevel.rawValue) ?? .info) { record in
            let level = GitbayLogRecord.Level(rawValue: record.level.rawValue) ?? .info
            handle(GitbayLogRecord(level: level, message: record.message, fields: record.metadata))
        }
    }
}
