import Foundation

/// Everything the fake instance knows, changed only under the server's lock.
struct FakeState: Sendable {
    /// An account's notification settings (`notifications settings show`).
    struct Settings: Sendable {
        var mail = true
        var watch = true
        var push = true
    }

    /// Switches that make the instance behave like a given release or configuration.
    struct Modes: Sendable {
        var pushEnabled = true
        var returnsDeviceID = true
        var enforceRateLimits = true
        var latency: Duration = .zero
        var isDown = false
        var apiEnabled = true
    }

    /// A fault waiting for its next matching requests.
    struct PendingFault: Sendable {
        let fault: FakeFault
        /// Leading argv words a request must start with; nil matches any command.
        let command: [String]?
        let user: String?
        var remaining: Int
    }

    /// Counters for `GET /_fake/stats`.
    struct Stats: Sendable {
        var requests = 0
        var reads = 0
        var writes = 0
        var moves = 0
        /// TCP connections accepted, admitted or not.
        var connections = 0
        /// The most requests answered at once (read, and their replies not yet ready to send).
        var mostAnswering = 0
        /// The most writes (requests on the command route that change state) answered at once.
        var mostWritesAnswering = 0
        /// Every write answered, from the server starting on it to its reply being ready.
        var writeSpans: [WriteSpan] = []
    }

    /// A write the server started answering.
    struct WriteStart: Sendable {
        let command: String
        /// Microseconds since 1970 (the system's clock, not the fake's: spans of several
        /// servers on one machine are compared).
        let startMicroseconds: Int
    }

    /// A write answered: its command's name, and when the server started and finished answering it.
    struct WriteSpan: Sendable {
        let command: String
        let startMicroseconds: Int
        let endMicroseconds: Int
    }

    /// Writes being answered right now.
    private(set) var writesAnswering = 0

    /// Counts a write in; its reply carries what `writeAnswered` needs.
    mutating func writeStarted(_ command: String) -> WriteStart {
        writesAnswering += 1
        stats.mostWritesAnswering = max(stats.mostWritesAnswering, writesAnswering)
        return WriteStart(command: command, startMicroseconds: Self.microseconds())
    }

    /// Counts a write out, its reply ready `after` from now (the in-memory exchange's latency,
    /// which its caller waits); keeps its span.
    mutating func writeAnswered(_ start: WriteStart, after: Duration = .zero) {
        writesAnswering -= 1
        let after = Int(after.components.seconds) * 1_000_000 + Int(after.components.attoseconds / 1_000_000_000_000)
        stats.writeSpans.append(
            WriteSpan(command: start.command, startMicroseconds: start.startMicroseconds, endMicroseconds: Self.microseconds() + after))
    }

    private static func microseconds() -> Int {
        Int(Date().timeIntervalSince1970 * 1_000_000)
    }

    /// Requests read whose replies are not yet ready to send, control routes included.
    private(set) var answering = 0

    /// Counts a request in (`started`) or out, keeping the most at once in the stats.
    mutating func answering(_ started: Bool) {
        answering += started ? 1 : -1
        stats.mostAnswering = max(stats.mostAnswering, answering)
    }

    var modes = Modes()
    private(set) var users: [String: Settings] = [:]
    /// Every token not revoked, by its value; expired ones too, as `token list` shows them.
    private(set) var tokens: [String: FakeToken] = [:]
    /// Tokens created so far, for `FakeToken.serial`.
    private var tokensCreated = 0
    /// The time a test set the fake's clock to (`FakeGitbayServer.now`); nil: the system's.
    var frozenNow: Date?
    /// How far ahead of the system's time the clock runs while it is not frozen.
    var clockAhead: TimeInterval = 0
    /// Id ascending, always.
    private(set) var devices: [FakeDevice] = []
    /// Every row deleted so far, oldest first.
    private(set) var deletions: [FakeDeletion] = []
    /// Every move of a row to another account so far, oldest first.
    private(set) var moves: [FakeMove] = []
    var faults: [PendingFault] = []
    var log: [FakeRequest] = []
    /// Every command run over the SSH front, oldest first.
    var sshLog: [FakeSSHCommand] = []
    var stats = Stats()
    var limits: [String: AccountLimits] = [:]

    mutating func addUser(_ username: String) {
        if users[username] == nil { users[username] = Settings() }
    }

    /// The fake's time, in whole milliseconds as gitbay stores its times: the time a test set,
    /// else the system's.
    var now: Date {
        let seconds = (frozenNow ?? Date().addingTimeInterval(clockAhead)).timeIntervalSince1970
        return Date(timeIntervalSince1970: (seconds * 1000).rounded(.down) / 1000)
    }

    /// Stores `token` as `username`'s (creating the account), named `name` or, without one,
    /// a name of its own (`token-N`), expiring `lifetime` from now (nil: never). A name the
    /// account already uses is a mistake of the caller's.
    mutating func addToken(_ token: String, for username: String, scope: TokenScope, name: String? = nil, lifetime: Duration? = nil) {
        addUser(username)
        let createdAt = now
        let expiresAt = lifetime.map { lifetime in
            let (seconds, attoseconds) = lifetime.components
            let end = createdAt.timeIntervalSince1970 + Double(seconds) + Double(attoseconds) / 1e18
            return Date(timeIntervalSince1970: (end * 1000).rounded(.down) / 1000)
        }
        tokensCreated += 1
        var chosen = name ?? "token-\(tokensCreated)"
        var suffix = tokensCreated
        while name == nil && hasToken(named: chosen, of: username) {
            suffix += 1
            chosen = "token-\(suffix)"
        }
        precondition(!hasToken(named: chosen, of: username), "\(username) already has a token named \(chosen)")
        tokens[token] = FakeToken(
            value: token, user: username, name: chosen, scope: scope, createdAt: createdAt, expiresAt: expiresAt, lastUsedAt: nil,
            serial: tokensCreated)
    }

    mutating func revokeToken(_ token: String) {
        tokens[token] = nil
    }

    /// Whether `username` has a token (expired or not) named `name`.
    func hasToken(named name: String, of username: String) -> Bool {
        tokens.values.contains { $0.user == username && $0.name == name }
    }

    /// The token a lookup of `bearer` finds now, without counting the lookup: nil when it is
    /// unknown, revoked or expired, which gitbay answers alike.
    func validToken(_ bearer: String) -> FakeToken? {
        guard let token = tokens[bearer], token.isValid(at: now) else { return nil }
        return token
    }

    /// A successful lookup of `bearer`, which refreshes its `last_used_at`; nil as for `validToken`.
    mutating func authenticate(_ bearer: String) -> FakeToken? {
        guard var token = validToken(bearer) else { return nil }
        token.lastUsedAt = now
        tokens[bearer] = token
        return token
    }

    mutating func setPush(_ enabled: Bool, for username: String) {
        addUser(username)
        users[username]?.push = enabled
    }

    /// Registers `token` for `owner` the way `device add` does and returns the row id.
    ///
    /// Keyed on the token alone (the column is UNIQUE): an existing row keeps its id, `added`
    /// and `insertedWith`, takes the new label and moves to `owner` (logged as a move when
    /// `owner` is another account). `apiToken` is the bearer of the `device add`, nil when
    /// the row comes from the Swift API.
    mutating func upsertDevice(owner: String, token: String, label: String, now: Date, apiToken: String?) -> Int {
        addUser(owner)
        if let index = devices.firstIndex(where: { $0.token == token }) {
            let row = devices[index]
            if row.owner != owner {
                moves.append(FakeMove(id: row.id, from: row.owner, to: owner, byAPIToken: apiToken))
                stats.moves += 1
            }
            devices[index] = FakeDevice(
                id: row.id, owner: owner, label: label, token: token, added: row.added, insertedWith: row.insertedWith)
            return row.id
        }
        // No AUTOINCREMENT: SQLite picks max(rowid)+1, so a deleted top id comes back.
        let id = (devices.last?.id ?? 0) + 1
        let added = Date(timeIntervalSince1970: (now.timeIntervalSince1970 * 1000).rounded(.down) / 1000)
        devices.append(FakeDevice(id: id, owner: owner, label: label, token: token, added: added, insertedWith: apiToken))
        return id
    }

    /// Deletes the row with `id`, whoever owns it, and logs it; false if there is none.
    /// `apiToken` is the bearer of the `device remove`, nil for a deletion by the server itself.
    @discardableResult
    mutating func deleteDevice(id: Int, apiToken: String?) -> Bool {
        guard let index = devices.firstIndex(where: { $0.id == id }) else { return false }
        deletions.append(FakeDeletion(device: devices[index], byAPIToken: apiToken))
        devices.remove(at: index)
        return true
    }

    /// Takes one use of the first pending fault matching the request, if any.
    mutating func takeFault(argv: [String], user: String?) -> FakeFault? {
        guard
            let index = faults.firstIndex(where: { pending in
                if let command = pending.command, !argv.starts(with: command) { return false }
                if let wanted = pending.user, wanted != user { return false }
                return true
            })
        else { return nil }
        let fault = faults[index].fault
        faults[index].remaining -= 1
        if faults[index].remaining <= 0 { faults.remove(at: index) }
        return fault
    }

    /// Appends to the request log and counts it for the stats.
    mutating func record(_ request: FakeRequest) {
        log.append(request)
        stats.requests += 1
        if request.isWrite { stats.writes += 1 } else { stats.reads += 1 }
    }
}
