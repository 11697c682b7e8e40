import Foundation
import GitbayFake
import GitbayKeyring
import TestSupport
import TransportSupport

@testable import GitbayAPI
@testable import GitbayReconcile
@testable import GitbayState
@testable import GitbaySupport
@testable import GitbaySync
@testable import PushResolve

/// Stops a command at a chosen request as if the process were killed: that request and every
/// later one fail unsent (or the chosen one's answer is dropped after the server applied it),
/// and a cancelled account records nothing more.
final class CrashSwitch: Sendable {
    private let crash: ModelCrash
    private let state = LockedBox<(count: Int, crashed: Bool)>((0, false))

    init(_ crash: ModelCrash) {
        self.crash = crash
    }

    var crashed: Bool { state.value.crashed }

    /// `transport`, stopped where this crash is.
    func gating(_ transport: any HTTPTransport) -> GatedTransport {
        GatedTransport(
            transport,
            mayStart: { [state, crash] in
                var allowed = false
                state.mutate { state in
                    guard !state.crashed else { return }
                    state.count += 1
                    if state.count == crash.atRequest && !crash.afterServerApplied { state.crashed = true } else { allowed = true }
                }
                return allowed
            },
            mayFinish: { [state, crash] in
                var allowed = false
                state.mutate { state in
                    guard !state.crashed else { return }
                    if state.count == crash.atRequest && crash.afterServerApplied { state.crashed = true } else { allowed = true }
                }
                return allowed
            }
        )
    }
}

/// A broken invariant, with the step it broke at.
struct ModelViolation: Error, CustomStringConvertible {
    let step: Int
    let message: String
    var description: String { "after step \(step): \(message)" }
}

/// Two fake gitbay instances, this device's command line, and what the test knows of both:
/// replays a schedule and checks the invariants after every step.
final class ModelWorld {
    /// The accounts: user, instance, and the host name the account signs in under. erin's
    /// instance is alice's and bob's, reached as `localhost`: one server under two names.
    static let users = [
        ("alice", 0, "127.0.0.1"), ("bob", 0, "127.0.0.1"), ("carol", 1, "127.0.0.1"), ("dan", 1, "127.0.0.1"), ("erin", 0, "localhost"),
    ]
    /// How far each instance's clock runs ahead of this device's, as two machines' clocks do.
    /// Two servers that hand out the same row id in the same millisecond of their own clocks to
    /// this device's adds, then that row gone from one of them unexplained before its account
    /// lists again, would be taken for one server (how-it-decides.md); the model's servers are
    /// never that close, so it does not play that case.
    static let serverClocks: [TimeInterval] = [0, 1.5]
    /// The accounts signed in when the world starts; the others sign in by `relogin`.
    static let signedInAtStart = 0..<4
    /// This machine and the one a copy of its state folder is taken to.
    static let machine = MachineIdentity(identity: "a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1")
    static let otherMachine = MachineIdentity(identity: "b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2")

    let servers: [FakeGitbayServer]
    let cli: CLIHarness
    /// This machine's OS keyring (a real Secret Service on a private bus): the accounts of
    /// `keyringUsers` keep their token there, the others in the database. Nil on a machine
    /// with no session bus (until `keyringStarts`), where every token is kept in the database.
    private(set) var session: SecretServiceSession?
    /// The users (by index) whose sign-in keeps the token in the keyring.
    static let keyringUsers: Set<Int> = [0, 2, 4]
    /// The clients' settings: the harness's, over the two servers in memory or over HTTP
    /// (instance 0 under its second name too).
    let client: ClientConfiguration
    /// Every token this device has held.
    private var heldTokens: Set<String> = []
    private var currentToken: String?
    private var label = ""
    /// Every API token this install signed in with.
    var apiTokens: Set<String> = []
    /// Sign-in order of the accounts, by index (a new sign-in goes last).
    var signInOrder: [Int] = []
    /// The user's `prefer` choices, by instance and the name it was made under, in the order
    /// made: until two names are found to be one server, a choice holds for its name only.
    private var preferences: [ModelPreference] = []
    /// True once gitbay-sync has found instance 0's two names to be one server.
    private var namesProven = false
    var removalRequested: Set<Int> = []
    /// Each signed-in account's row id, by index.
    var accountIDs: [Int: Int64] = [:]
    /// True once the world changed a server after the last fault-free run.
    private var worldMoved = false
    /// A crash, a run beside a step or a second machine happened: rows may have moved
    /// between accounts in ways a dry run's lists cannot foresee (`ModelDryRun`).
    private var disturbed = false
    /// How far ahead of the wall clock this device's clock is: moved on past the longest wait
    /// after a server asked for a hostile one, so the runs after it are not left waiting.
    private(set) var clockAhead: TimeInterval = 0
    /// Whether the clock moved ahead since the last fault-free run.
    private var clockMovedSinceRun = false
    /// The second machine, once the state folder was copied to it.
    private var second: ModelSecondMachine?
    /// Deletions seen by the last check, per server: each step's new ones are its own.
    private var deletionsSeen: [Int] = [0, 0]
    /// The API tokens: names, lifetimes, and the tokens this install must never revoke.
    let tokens = ModelTokens()
    /// The real sshd before each instance that `login --ssh` reached so far, started at its first.
    var fronts: [Int: SSHFront] = [:]

    /// How the commands reach the servers: in memory (`MemoryTransport`, the fake's state
    /// without sockets), or over real HTTP on 127.0.0.1 with the tests' transport (libcurl, as
    /// the built binary sends, or URLSession: `ServerTransport`).
    enum Transport: String, Sendable {
        case memory, http
    }

    init(_ schedule: ModelSchedule, over transport: Transport = .memory) async throws {
        servers = try (0..<2).map { index in
            let server = try FakeGitbayServer()
            server.returnsDeviceID = schedule.returnsDeviceID[index]
            server.clockAhead = Self.serverClocks[index]
            // Schedules write far more often than a person does; the limits are tested elsewhere.
            server.enforceRateLimits = false
            return server
        }
        cli = try CLIHarness()
        session = schedule.keyring ? try await SecretServiceSession.start() : nil
        var client = CLIHarness.client
        switch transport {
        case .memory: client.http = MemoryTransport(servers, aliases: ["http://localhost:\(servers[0].port)": servers[0]])
        // localhost is the first server under its other name here too.
        case .http: client.http = ServerTransport.chosen.make()
        }
        self.client = client
        tokens.addForeignTokens(servers, users: Self.users)
        for index in Self.signedInAtStart { try await login(index, via: .named, crash: nil) }
        label = try await cli.store().device().label
    }

    deinit {
        session?.stop()
        fronts.values.forEach { $0.stop() }
    }

    /// What the command line sees of this machine's keyring: nothing when it has no session bus.
    private var bus: [String: String] { session.map { ["DBUS_SESSION_BUS_ADDRESS": $0.busAddress] } ?? [:] }

    /// Every item in this machine's keyring (none without one).
    private func keyringItems() async throws -> [String: Secret] {
        guard session != nil else { return [:] }
        return try await ModelKeyring.readAll(SecretServiceKeyring(environment: bus))
    }

    /// Each account's API token, by account id, wherever it is kept: the keyring read once,
    /// or as `read` holds it when the caller read it already.
    func storedTokens(keyring read: [String: Secret]? = nil) async throws -> [Int64: Secret] {
        let store = try await cli.store()
        var tokens = try await store.storedAPITokens().mapValues(\.token)
        let items = try await store.keyringItems()
        guard !items.isEmpty else { return tokens }
        let kept = if let read { read } else { try await keyringItems() }
        for (id, item) in items { tokens[id] = kept[item] }
        return tokens
    }

    func name(_ index: Int) -> String {
        "\(Self.users[index].0)@\(Self.users[index].2):\(servers[Self.users[index].1].port)"
    }

    /// Runs a command on this machine, with this device's clock.
    /// `at`: the device's clock stands still at that instant for the whole command.
    /// `environment`: more variables for the command (`$GITBAY_SYNC_SSH`).
    func command(
        _ arguments: [String], stdin: String? = nil, client: ClientConfiguration? = nil, at instant: Date? = nil,
        environment: [String: String] = [:]
    ) async -> CLIResult {
        let client = client ?? self.client
        return await cli.run(arguments, stdin: stdin, client: client, extraEnvironment: bus.merging(environment) { $1 }) {
            [clockAhead] context in
            context.machine = { ModelWorld.machine }
            context.now = { instant ?? Date().addingTimeInterval(clockAhead) }
        }
    }

    func signedIn() async throws -> [String: AccountRecord] {
        Dictionary(uniqueKeysWithValues: try await cli.store().accounts().map { ($0.name, $0) })
    }

    func client(_ crash: ModelCrash?) -> (ClientConfiguration, CrashSwitch?) {
        guard let crash else { return (self.client, nil) }
        let crashSwitch = CrashSwitch(crash)
        var configuration = self.client
        configuration.http = crashSwitch.gating(configuration.http)
        return (configuration, crashSwitch)
    }

    /// Carries out step `number` of a schedule and checks the invariants. `alongside` marks a
    /// step carried out while a run is in flight, whose verdicts are not final.
    func perform(_ step: ModelStep, number: Int, alongside: Bool = false) async throws {
        let names = try await signedIn()
        let (configuration, crashSwitch) = client(step.crash)
        var faultFreeRun = false
        // The accounts whose token their server refuses as the step starts: a run fails for them alone.
        let refused = try await refusedAccounts()
        switch step {
        case .setToken(let token, let newLabel):
            let result = await command(["device", "set-token"] + (newLabel.map { ["--label", $0] } ?? []), stdin: token)
            guard result.code == 0 else { throw ModelViolation(step: number, message: "set-token failed: \(result.err)") }
            currentToken = token
            heldTokens.insert(token)
            if let newLabel { label = newLabel }
        case .run(let concurrency, let crash):
            // (10) A dry run first, when nothing stops the run or changes the world beside it.
            // Both at one instant: a backoff that ends in between would part them.
            let instant = Date().addingTimeInterval(clockAhead)
            let planned = crash == nil && !alongside ? try await dryRunWrites(number, at: instant) : nil
            servers.forEach { $0.resetRequests() }
            let result = await command(
                ["run", "--json", "--concurrency", String(concurrency)], client: configuration, at: planned == nil ? nil : instant)
            if let planned, result.code == 0, !disturbed { try checkPlanned(planned, run: deviceWrites(), number) }
            if !(crashSwitch?.crashed ?? false) {
                if refused.isEmpty {
                    guard result.code == 0 else {
                        throw ModelViolation(step: number, message: "a fault-free run failed (\(result.code)): \(result.err)")
                    }
                } else {
                    try await checkRefusedRun(result, refused: refused, number)
                }
                faultFreeRun = true
                clockMovedSinceRun = false
                if !alongside {
                    try await ModelKeyring.checkRotated(result, try await cli.store(), now: Date().addingTimeInterval(clockAhead), step: number)
                    if session != nil { try await ModelKeyring.checkMoved(result, try await cli.store(), step: number) }
                }
            }
        case .pause(let index, _), .resume(let index, _):
            guard let account = names[name(index)], account.state != .removing else { return }
            let verb = if case .pause = step { "pause" } else { "resume" }
            _ = await command([verb, account.name], client: configuration)
        case .prefer(let index, _):
            guard let account = names[name(index)] else { return }
            _ = await command(["prefer", account.name], client: configuration)
            // Refused for an account being signed out: nothing is chosen.
            if account.state != .removing { prefer(index) }
        case .removeAccount(let index, _):
            guard let account = names[name(index)] else { return }
            removalRequested.insert(index)
            _ = await command(["remove-account", account.name], client: configuration)
        case .relogin(let index, let crash):
            // Signed out, or being signed out: a sign-in ends a removal in progress.
            guard names[name(index)].map({ $0.state == .removing }) ?? true else { return }
            try await login(index, via: .named, crash: crash)
        case .signIn(let index, let via, let crash):
            try await login(index, via: via, crash: crash)
        case .keyringStarts:
            if session == nil { session = try await SecretServiceSession.start() }
        case .revokeBehind(let index, let current):
            try await revokeBehind(index, current: current)
            worldMoved = true
        case .clearDevice:
            _ = await command(["device", "clear"], client: configuration)
            currentToken = nil
        case .otherDevice(let instance, let owner, let token, let label):
            servers[instance].insertDevice(owner: owner, token: token, label: label)
            worldMoved = true
        case .reap(let instance, let pick):
            let rows = servers[instance].devices()
            guard !rows.isEmpty else { return }
            let row = rows[pick % rows.count]
            guard !coincides(row, on: instance) else { return }
            servers[instance].deleteDevice(id: row.id)
            worldMoved = true
        case .takeToken(let instance):
            guard let currentToken, let row = servers[instance].devices().first(where: { $0.token == currentToken }),
                !coincides(row, on: instance)
            else { return }
            servers[instance].insertDevice(owner: "zed", token: currentToken, label: "zed's app")
            worldMoved = true
        case .alongsideRun(let inner):
            servers.forEach { $0.latency = .milliseconds(2) }
            let (harness, ahead, client, bus) = (cli, clockAhead, client, bus)
            async let background = harness.run(["run", "--json", "--concurrency", "4"], client: client, extraEnvironment: bus) { context in
                context.machine = { ModelWorld.machine }
                context.now = { Date().addingTimeInterval(ahead) }
            }
            try await perform(inner, number: number, alongside: true)
            let result = await background
            servers.forEach { $0.latency = .zero }
            // 75: an account the local change held (its lease) or changed all through the run was not checked.
            guard [0, 1, 75].contains(result.code) else {
                throw ModelViolation(step: number, message: "a run beside a local change failed (\(result.code)): \(result.err)")
            }
            // What the two did together is checked by the next fault-free run.
            worldMoved = true
        case .secondMachine:
            try await onSecondMachine(number, configuration: configuration, crashed: { crashSwitch?.crashed ?? false })
            worldMoved = true
        case .hostileWait(let instance, let retryAfter):
            try await hostileWait(instance, retryAfter: retryAfter, number: number)
            worldMoved = true
        case .hungServer(let instance):
            try await hungRun(instance, number: number)
            worldMoved = true
        case .slowServer(let instance):
            try await slowRun(instance, number: number)
            worldMoved = true
        case .nearExpiry:
            // Two thirds of the tokens' lifetime pass on this device's clock: the next run rotates
            // them. Once only until a fault-free run has: twice would let them expire on their
            // servers, which no client survives.
            guard !clockMovedSinceRun else { return }
            clockMovedSinceRun = true
            clockAhead += 61 * 86_400
            // The servers' clocks with it: a token's expiry is what its server answers.
            for (index, server) in servers.enumerated() { server.clockAhead = clockAhead + Self.serverClocks[index] }
        }
        // A step that may crash counts whether or not it did: `relogin` crashes through a switch of its own.
        switch step {
        case .alongsideRun, .secondMachine: disturbed = true
        default: if step.crash != nil { disturbed = true }
        }
        try await syncAccounts(number)
        let users = Dictionary(uniqueKeysWithValues: accountIDs.map { index, id in (id, (Self.users[index].0, Self.users[index].1)) })
        // The keyring read once for both checks: nothing between them changes it.
        let kept = try await keyringItems()
        let stored = try await tokens.observe(try await cli.store(), users: users, tokens: try await storedTokens(keyring: kept))
        apiTokens.formUnion(stored)
        try tokens.check(servers, signedIn: Set(accountIDs.values), stored: stored, step: number)
        if !alongside, session != nil { try await ModelKeyring.checkItems(try await cli.store(), kept: kept, step: number) }
        if session == nil { try await ModelKeyring.checkNoItems(try await cli.store(), step: number) }
        try await followServerNames(number)
        try checkOnlyOurRowsRemoved(number, byTheSecondMachine: { if case .secondMachine = step { true } else { false } }())
        if faultFreeRun {
            worldMoved = false
            let clean = Self.instances(without: refused)
            try await checkDesiredRows(number, of: clean)
            try await checkRegisteredIsTrue(number, holdersToo: !alongside, of: clean)
            try await checkNextRunWritesNothing(number, of: clean)
            try await tokens.checkHealed(servers, try await cli.store(), tokens: try await storedTokens(), step: number)
        } else if case .setToken = step, !worldMoved, !alongside {
            try await checkRegisteredIsTrue(number)
        }
    }

    /// The second machine: made from a copy of the state folder the first time (it sets a
    /// device token of its own), then a run there. A fault-free run there must settle it.
    private func onSecondMachine(_ number: Int, configuration: ClientConfiguration, crashed: () -> Bool) async throws {
        if second == nil {
            let machine = try ModelSecondMachine(copying: cli)
            try await machine.setToken("b0b0b0b0-second-machine-\(number)", client: client, clockAhead: clockAhead)
            second = machine
        }
        guard let second else { return }
        let result = await second.command(["run", "--json"], client: configuration, clockAhead: clockAhead)
        guard !crashed() else { return }
        if try await second.failedOnlyOnRevokedTokens(result, servers) { return }
        guard try ModelSecondMachine.isDone(result) else {
            throw ModelViolation(step: number, message: "a fault-free run on the second machine failed (\(result.code)): \(result.err)")
        }
        try await second.checkSettled(servers, client: client, step: number, clockAhead: clockAhead)
    }

    /// A run while `instance` answers the next list with a 429 and a hostile `Retry-After`:
    /// every command goes on, no wait is stored further ahead than the longest a run sets, and
    /// this device's clock then moves past it.
    private func hostileWait(_ instance: Int, retryAfter: String, number: Int) async throws {
        servers[instance].inject(
            .status(429, body: #"{"protocol_version":1,"error":"rate limited"}"#, headers: ["Retry-After": retryAfter]),
            command: "notifications device list")
        let result = await command(["run", "--json"])
        // Played, or not needed (no account of the instance was tried): gone either way.
        servers[instance].clearFaults()
        guard [0, 1].contains(result.code) else {
            throw ModelViolation(step: number, message: "a run given Retry-After \(retryAfter) ended \(result.code): \(result.err)")
        }
        let longest = Date().addingTimeInterval(clockAhead + Double(FailurePolicy.longestWait.components.seconds) + 60)
        for status in try await cli.store().accountFacts().statuses.values {
            if let next = status.nextRetryAt, next > longest {
                throw ModelViolation(step: number, message: "Retry-After \(retryAfter) stored a wait until \(Timestamp.format(next))")
            }
        }
        clockAhead += Double(FailurePolicy.longestWait.components.seconds) + 3600
        for (index, server) in servers.enumerated() { server.clockAhead = clockAhead + Self.serverClocks[index] }
    }

    /// A run while `instance` takes connections and never answers: the other instance's
    /// accounts end it as a fault-free run leaves them, rows and verdicts, within their own
    /// deadline; the hung one's are left as they were. This device's clock then moves past the
    /// waits the failures set.
    private func hungRun(_ instance: Int, number: Int) async throws {
        servers[instance].inject(.hang, command: "notifications device", times: 1000)
        try await runBeside(instance, number: number, what: "a hung")
    }

    /// A run while `instance` answers every request a second late, half the accounts'
    /// deadline: the other instance's accounts end it as a fault-free run leaves them, so none
    /// of their work waited on the slow one's; whatever the slow one's accounts are said to
    /// be registered is true. This device's clock then moves past the waits any failures set.
    private func slowRun(_ instance: Int, number: Int) async throws {
        servers[instance].latency = .seconds(1)
        try await runBeside(instance, number: number, what: "a slow")
        try await checkRegisteredIsTrue(number, of: [instance])
    }

    /// A run with a deadline of 2 s per account while `instance` has a fault (`what` names it),
    /// then the checks of a fault-free run on the other instance.
    private func runBeside(_ instance: Int, number: Int, what: String) async throws {
        var configuration = client
        configuration.transport.requestTimeout = .seconds(4)
        configuration.deadline = .seconds(2)
        let result = await command(["run", "--json"], client: configuration)
        servers[instance].clearFaults()
        servers[instance].latency = .zero
        guard [0, 1].contains(result.code) else {
            throw ModelViolation(step: number, message: "a run beside \(what) instance \(instance) ended \(result.code): \(result.err)")
        }
        try await syncAccounts(number)
        try await followServerNames(number)
        let other = Self.instances(without: try await refusedAccounts()).intersection([1 - instance])
        try await checkDesiredRows(number, of: other)
        try await checkRegisteredIsTrue(number, holdersToo: true, of: other)
        clockAhead += Double(FailurePolicy.longestWait.components.seconds) + 3600
        for (index, server) in servers.enumerated() { server.clockAhead = clockAhead + Self.serverClocks[index] }
    }

    /// A `prefer` of account `index`: it replaces the choice made under its name, and (once the
    /// names are one server) under the server's other name.
    private func prefer(_ index: Int) {
        let (_, instance, host) = Self.users[index]
        preferences.removeAll { $0.instance == instance && ($0.host == host || (instance == 0 && namesProven)) }
        preferences.append(ModelPreference(instance: instance, host: host, account: index))
    }

    /// Reads which names gitbay-sync found to be one server: only instance 0's two names are,
    /// so anything else is a false merge. Once found, the latest choice under either name holds.
    private func followServerNames(_ number: Int) async throws {
        let proofs = try await cli.store().serverNames().proofs
        let instance0 = Set(["127.0.0.1", "localhost"].map { "http://\($0):\(servers[0].port)" })
        for proof in proofs where !instance0.contains(proof.instance.description) || !instance0.contains(proof.other.description) {
            throw ModelViolation(step: number, message: "\(proof.instance) and \(proof.other) were taken to be one server (\(rowsAlike()))")
        }
        guard !proofs.isEmpty, !namesProven else { return }
        namesProven = true
        if let latest = preferences.last(where: { $0.instance == 0 }) {
            preferences.removeAll { $0.instance == 0 && $0 != latest }
        }
    }

    /// The account that should hold the device token on each group of names gitbay-sync treats
    /// as one instance: the chosen one if active, else the earliest signed-in active one.
    private func holders(_ names: [String: AccountRecord]) -> [Int] {
        var groups: [[Int]] = [[], [], []]
        for index in signInOrder where names[name(index)]?.state == .active {
            let (_, instance, host) = Self.users[index]
            groups[instance == 0 && host == "localhost" && !namesProven ? 2 : instance].append(index)
        }
        return groups.compactMap { group in
            guard let first = group.first else { return nil }
            let (_, instance, host) = Self.users[first]
            let choice = preferences.last { $0.instance == instance && (namesProven || instance != 0 || $0.host == host) }
            return choice.flatMap { group.contains($0.account) ? $0.account : nil } ?? first
        }
    }

    /// Follows sign-outs: an account leaves only after its removal was asked for.
    private func syncAccounts(_ number: Int) async throws {
        let names = try await signedIn()
        for index in signInOrder where names[name(index)] == nil {
            guard removalRequested.contains(index) else {
                throw ModelViolation(step: number, message: "\(name(index)) disappeared without a remove-account")
            }
            signInOrder.removeAll { $0 == index }
            accountIDs[index] = nil
            preferences.removeAll { $0.account == index }
        }
    }

    /// (1) No row this install did not make, or holding a token this device never held, was
    /// ever removed by this install; a step of one machine removed rows of its tokens only.
    private func checkOnlyOurRowsRemoved(_ number: Int, byTheSecondMachine: Bool) throws {
        for (instance, server) in servers.enumerated() {
            let deletions = server.deletions()
            defer { deletionsSeen[instance] = deletions.count }
            for deletion in deletions.dropFirst(deletionsSeen[instance]) {
                guard let by = deletion.byAPIToken, apiTokens.contains(by) else { continue }
                let row = deletion.device
                let own = byTheSecondMachine ? second?.heldTokens ?? [] : heldTokens
                guard let insertedWith = row.insertedWith, apiTokens.contains(insertedWith), own.contains(row.token) else {
                    throw ModelViolation(
                        step: number,
                        message: "removed another device's row on instance \(instance): id \(row.id), owner \(row.owner), label \(row.label)")
                }
            }
        }
    }

    /// (2) After a fault-free run every account holds exactly its desired rows: the holder of
    /// each instance one row of the current token with this device's label, every other
    /// account of ours (shadowed, paused, signed out, or no token) none of this device's.
    private func checkDesiredRows(_ number: Int, of instances: Set<Int> = [0, 1]) async throws {
        let store = try await cli.store()
        let names = try await signedIn()
        let serverLabel = "\(label) [\(try await store.device().installMarker)]"
        let holders = holders(names)
        // Both names of instance 0 wanting the token, after a fault-free run: that run's moves
        // must have proven them one server.
        if currentToken != nil, instances.contains(0), holders.filter({ Self.users[$0].1 == 0 }).count > 1 {
            throw ModelViolation(step: number, message: "instance 0's two names each have a holder, and were not found to be one server")
        }
        for (index, (user, instance, _)) in Self.users.enumerated() where instances.contains(instance) {
            let account = names[name(index)]
            let holder = holders.first { Self.users[$0].1 == instance }
            let ours = servers[instance].devices(of: user).filter { heldTokens.contains($0.token) }
            if account?.state == .active, holder == index, let currentToken {
                guard ours.count == 1, ours[0].token == currentToken, ours[0].label == serverLabel else {
                    throw ModelViolation(
                        step: number,
                        message: "\(user), the holder, has rows \(ours.map { "\($0.id) \($0.label)" }) instead of one of the current token")
                }
            } else if !ours.isEmpty {
                throw ModelViolation(
                    step: number, message: "\(user) (\(account?.state.rawValue ?? "signed out")) still has this device's rows \(ours.map(\.id))")
            }
        }
    }

    /// (4) `accounts` says registered only when the account's row holds the current token; and,
    /// right after a fault-free run on its own (`holdersToo`), it says registered for every
    /// holder: no other account's pass took that verdict away.
    private func checkRegisteredIsTrue(_ number: Int, holdersToo: Bool = false, of instances: Set<Int> = [0, 1]) async throws {
        let result = await command(["accounts", "--json"])
        let rows = try result.json()["accounts"] as? [[String: Any]] ?? []
        if holdersToo, currentToken != nil {
            let said = Dictionary(
                rows.map { ($0["account"] as? String ?? "", "\($0["condition"] as? String ?? "") (\($0["detail"] as? String ?? ""))") },
                uniquingKeysWith: { a, _ in a })
            for holder in holders(try await signedIn())
            where instances.contains(Self.users[holder].1) && said[name(holder)]?.hasPrefix("registered (") != true {
                throw ModelViolation(
                    step: number, message: "\(name(holder)), the holder, is said \(said[name(holder)] ?? "nothing") right after a fault-free run")
            }
        }
        for row in rows where row["condition"] as? String == "registered" {
            let account = row["account"] as? String ?? ""
            guard let index = Self.users.indices.first(where: { name($0) == account }), let currentToken,
                servers[Self.users[index].1].devices(of: Self.users[index].0).contains(where: { $0.token == currentToken })
            else {
                throw ModelViolation(step: number, message: "\(account) is reported registered, but holds no row of the current token")
            }
        }
    }

    /// (3) The next run writes nothing, on `instances`; it fails only when an account of
    /// another instance has its token refused.
    private func checkNextRunWritesNothing(_ number: Int, of instances: Set<Int>) async throws {
        servers.forEach { $0.resetRequests() }
        let again = await command(["run", "--json"])
        let writes = instances.sorted().flatMap { servers[$0].requests().filter(\.isWrite) }
        guard again.code == 0 || (again.code == 1 && instances.count < 2), writes.isEmpty else {
            throw ModelViolation(
                step: number,
                message:
                    "the run after a fault-free run wrote \(writes.map { "\($0.user ?? "?"): \($0.argv.joined(separator: " "))" }) (exit \(again.code)) \(again.err)"
            )
        }
    }
}

extension ModelWorld {
    /// Whether the other instance holds or held a row that looks like `row` (one id, token and
    /// millisecond). Such a row is never reaped nor taken: gone from its account's list
    /// unexplained, it is the one coincidence how-it-decides.md leaves open.
    fileprivate func coincides(_ row: FakeDevice, on instance: Int) -> Bool {
        let other = servers[1 - instance]
        return (other.devices() + other.deletions().map(\.device)).contains { $0.sameRow(as: row) }
    }
}

extension ModelWorld {
    /// The rows the two servers hold or held alike (one id, token and millisecond), said beside
    /// a merge: with one, the merge may be the coincidence how-it-decides.md leaves open,
    /// which the world drew without `coincides` seeing it; without one, it is not.
    fileprivate func rowsAlike() -> String {
        let rows = servers.map { $0.devices() + $0.deletions().map(\.device) }
        let alike = rows[0].filter { row in rows[1].contains { $0.sameRow(as: row) } }
        guard !alike.isEmpty else { return "no row alike on the two servers" }
        return "rows alike on the two servers: " + alike.map { "id \($0.id) added \(Timestamp.format($0.added))" }.joined(separator: ", ")
    }
}

extension FakeDevice {
    /// Whether `other`, on another server, looks like this very row: the same id, token and `added`.
    fileprivate func sameRow(as other: FakeDevice) -> Bool {
        id == other.id && token == other.token && added == other.added
    }
}
