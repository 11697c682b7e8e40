import Foundation

/// A stateful stand-in for a gitbay server on 127.0.0.1, faithful to the JSON API in
/// PROTOCOL.md, with switches for older releases and injectable faults.
///
/// Starts serving in `init`; `stop()` (or the last reference going away) closes the listener
/// and every connection. Everything here is thread-safe.
///
/// Besides the API it serves two unauthenticated control routes for scripts (the benchmark):
/// `GET /_fake/stats` answers the counters since the start or the last reset (requests, reads,
/// writes, row moves, TCP connections, the most requests and writes answered at once, each
/// write's span) and the rows (id, owner, label, the token's first 8 bytes), as
/// APIRouter+Control documents; `POST /_fake/reset-stats` zeroes them and clears `requests()`.
/// They are never recorded, delayed or faulted.
///
/// Like gitbay, it enforces both per-account rate limits unless told not to
/// (`enforceRateLimits`): a test that makes many calls on one account and is not about limits
/// turns them off.
public final class FakeGitbayServer: Sendable {
    let state = Guarded(FakeState())
    private let listener: HTTPListener

    /// Binds 127.0.0.1 on `port` (0 picks a free one) and starts serving.
    public init(port: UInt16 = 0) throws {
        let state = self.state
        listener = try HTTPListener(
            port: port,
            accepted: { state.withLock { $0.stats.connections += 1 } },
            answering: { started in state.withLock { $0.answering(started) } },
            answered: { reply in
                if let write = reply.write { state.withLock { $0.writeAnswered(write) } }
            },
            admits: { !state.withLock { $0.modes.isDown } },
            handler: APIRouter(state: state).reply(to:))
    }

    deinit {
        listener.stop()
    }

    /// The port actually bound.
    public var port: UInt16 { listener.port }

    /// `http://127.0.0.1:PORT`, the instance URL a client is configured with.
    public var baseURL: String { "http://127.0.0.1:\(port)" }

    /// Stops accepting, closes every connection (hung ones too) and waits for their threads.
    public func stop() {
        listener.stop()
    }

    /// Closes every open connection (a client's idle one too) and goes on listening.
    public func closeConnections() {
        listener.closeConnections()
    }

    // MARK: Accounts and tokens

    /// Creates an account (no-op if it exists).
    public func addUser(_ username: String) {
        state.withLock { $0.addUser(username) }
    }

    /// Mints an API token `gb_<40 hex>` for `username`, creating the account if needed, as
    /// `token create` would: named `name` (without one, a name of its own, `token-N`) and
    /// expiring after `lifetime` on the fake's clock (nil: never). A name the account already
    /// uses is a mistake in the test.
    @discardableResult
    public func mintToken(for username: String, scope: TokenScope = .full, name: String? = nil, lifetime: Duration? = nil) -> String {
        let token = FakeState.newTokenValue()
        state.withLock { $0.addToken(token, for: username, scope: scope, name: name, lifetime: lifetime) }
        return token
    }

    /// Accepts `token`, whatever its form, as `username`'s (creating the account if needed):
    /// for tokens a real server may mint longer than `gb_<40 hex>`.
    public func addToken(_ token: String, for username: String, scope: TokenScope = .full) {
        state.withLock { $0.addToken(token, for: username, scope: scope) }
    }

    /// Revokes a token: it then answers 401 `invalid or expired token`.
    public func revokeToken(_ token: String) {
        state.withLock { $0.revokeToken(token) }
    }

    /// The tokens of `username` not revoked (expired ones included), in creation order.
    public func tokens(of username: String) -> [FakeToken] {
        state.withLock { $0.tokens.values.filter { $0.user == username }.sorted { $0.serial < $1.serial } }
    }

    /// Whether a request with `token` would be let in now: known, not revoked, not expired.
    /// Asking is not a lookup: `last_used_at` stays as it was.
    public func accepts(_ token: String) -> Bool {
        state.withLock { $0.validToken(token) != nil }
    }

    /// The fake's clock, which token lifetimes, `created_at`, `last_used_at` and a new row's
    /// `added` are read from, in whole milliseconds: the system's time until a test sets it,
    /// then the time set, standing still until it is set again (`server.now += 31 * 86_400`
    /// moves a month ahead), so that a test can check an expiry to the millisecond. The rate
    /// limits keep the monotonic clock.
    public var now: Date {
        get { state.withLock { $0.now } }
        set { state.withLock { $0.frozenNow = newValue } }
    }

    /// How far ahead of the system's time the fake's clock runs, still running (unlike `now`,
    /// which stops it): a test that moves a device's clock ahead moves the server's with it.
    public var clockAhead: TimeInterval {
        get { state.withLock { $0.clockAhead } }
        set { state.withLock { $0.clockAhead = newValue } }
    }

    // MARK: Devices and settings

    /// Every device row, id ascending, tokens in full.
    public func devices() -> [FakeDevice] {
        state.withLock { $0.devices }
    }

    /// The rows `username` owns, id ascending.
    public func devices(of username: String) -> [FakeDevice] {
        state.withLock { $0.devices.filter { $0.owner == username } }
    }

    /// Registers a device as another client would, with `device add` semantics (an existing
    /// row of the token keeps its id and moves to `owner`, logged in `moves()`); returns its id.
    /// The row's `insertedWith` is nil.
    @discardableResult
    public func insertDevice(owner: String, token: String, label: String) -> Int {
        state.withLock { $0.upsertDevice(owner: owner, token: token, label: label, now: $0.now, apiToken: nil) }
    }

    /// Deletes a row as the server does on an APNs rejection or a removal from the web page;
    /// logged in `deletions()` with no API token.
    public func deleteDevice(id: Int) {
        state.withLock { _ = $0.deleteDevice(id: id, apiToken: nil) }
    }

    // MARK: Provenance, for model-based tests

    /// Every row deleted so far, oldest first: by a `device remove` (with its bearer token) or
    /// by `deleteDevice(id:)`. Never cleared; a reset of the stats keeps it.
    public func deletions() -> [FakeDeletion] {
        state.withLock { $0.deletions }
    }

    /// Every time an upsert moved an existing row to another account, oldest first. A re-add
    /// by the row's own account is not a move. Never cleared; a reset of the stats keeps it.
    public func moves() -> [FakeMove] {
        state.withLock { $0.moves }
    }

    /// The account's `push` setting (true for an account that never changed it).
    public func pushSetting(of username: String) -> Bool {
        state.withLock { $0.users[username]?.push ?? true }
    }

    // MARK: Modes

    /// `[push] enabled`: false makes `device add` fail with exit 1 and store nothing.
    public var pushEnabled: Bool {
        get { state.withLock { $0.modes.pushEnabled } }
        set { state.withLock { $0.modes.pushEnabled = newValue } }
    }

    /// False behaves like v1.32.0: `device add` returns no id and short tokens list in full.
    public var returnsDeviceID: Bool {
        get { state.withLock { $0.modes.returnsDeviceID } }
        set { state.withLock { $0.modes.returnsDeviceID = newValue } }
    }

    /// Enforces, per account, the API limiter (429 with `Retry-After`; reads: a burst of 120,
    /// 2 a second; writes also a burst of 12, 0.2 a second) and the dispatcher's write limit
    /// (exit 4 / 403; a burst of 60, 1 a second). True by default, as on every gitbay.
    public var enforceRateLimits: Bool {
        get { state.withLock { $0.modes.enforceRateLimits } }
        set { state.withLock { $0.modes.enforceRateLimits = newValue } }
    }

    /// Charges `count` writes made over SSH or the web to the dispatcher's write limit of
    /// `username`, which they share with the API. Over the API alone the limiter's writes
    /// bucket (12, then one each 5 s) refuses long before 60 writes a minute; this is how a
    /// test reaches the write limit's 403.
    public func chargeWrites(_ count: Int, to username: String) {
        state.withLock { state in
            let now = ContinuousClock.now
            state.limits[username, default: AccountLimits(now: now)].spendWrites(count, at: now)
        }
    }

    /// Added before every answer (and before a reset).
    public var latency: Duration {
        get { state.withLock { $0.modes.latency } }
        set { state.withLock { $0.modes.latency = newValue } }
    }

    /// True closes every new connection, and every new request on an open one, without a
    /// reply; such requests are not recorded.
    public var isDown: Bool {
        get { state.withLock { $0.modes.isDown } }
        set { state.withLock { $0.modes.isDown = newValue } }
    }

    /// `[api] enabled`: false answers the HTML 404 page on every `/api` path.
    public var apiEnabled: Bool {
        get { state.withLock { $0.modes.apiEnabled } }
        set { state.withLock { $0.modes.apiEnabled = newValue } }
    }

    // MARK: Faults and the request log

    /// Plays `fault` for the next `times` API requests whose argv (without `--json`) starts
    /// with the words of `command` (e.g. `"notifications device add"`) and whose token
    /// belongs to `user`; nil matches anything. Faults are tried in injection order.
    public func inject(_ fault: FakeFault, command: String? = nil, user: String? = nil, times: Int = 1) {
        let words = command.map { $0.split(separator: " ").map(String.init) }
        state.withLock {
            $0.faults.append(FakeState.PendingFault(fault: fault, command: words, user: user, remaining: times))
        }
    }

    /// Forgets every fault not played yet.
    public func clearFaults() {
        state.withLock { $0.faults.removeAll() }
    }

    /// Every request answered so far (control routes excepted), oldest first.
    public func requests() -> [FakeRequest] {
        state.withLock { $0.log }
    }

    /// Every command run over SSH (`POST /_fake/ssh`, which the tests' SSH front forwards
    /// to), oldest first. Never cleared.
    public func sshCommands() -> [FakeSSHCommand] {
        state.withLock { $0.sshLog }
    }

    /// Clears the request log.
    public func resetRequests() {
        state.withLock { $0.log.removeAll() }
    }

    /// TCP connections accepted since the start or the last `POST /_fake/reset-stats`,
    /// admitted or not (while down, each is closed unanswered but still counted). A client
    /// that keeps its connection alive across requests adds one.
    public var connectionCount: Int {
        state.withLock { $0.stats.connections }
    }
}
