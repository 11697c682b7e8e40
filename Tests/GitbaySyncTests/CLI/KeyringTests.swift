import Foundation
import GitbayFake
import TestSupport
import Testing

@testable import GitbayReconcile
@testable import GitbayState
@testable import GitbaySupport
@testable import GitbaySync

/// Tokens in a real Secret Service (gnome-keyring on a private session bus), through the
/// command line as a user runs it.
@Suite("Tokens in the OS keyring")
struct KeyringTests {
    static let deviceToken = "c0ffee00aaaabbbbccccddddeeeeffff"

    /// The database's files, together: no API token may be in them.
    static func databaseBytes(_ cli: CLIHarness) -> String {
        [cli.databasePath, cli.databasePath + "-wal"].compactMap(fileBytes).map { String(decoding: $0, as: UTF8.self) }.joined()
    }

    static func bus(_ session: SecretServiceSession) -> [String: String] {
        ["DBUS_SESSION_BUS_ADDRESS": session.busAddress]
    }

    /// The keyring item of `account`'s token in `cli`'s database: the account and its install.
    private static func item(_ account: String, of cli: CLIHarness) async throws -> String {
        APITokens.installItem(of: account, installMarker: try await cli.store().device().installMarker)
    }

    @Test("login keeps the token in the keyring and says so; the files hold no token; run reads it in one query; remove-account deletes it")
    func loginRunRemove() async throws {
        let session = try await SecretServiceSession.start()
        defer { session.stop() }
        let server = try FakeGitbayServer()
        let cli = try CLIHarness()
        let token = server.mintToken(for: "alice")
        let login = await cli.run(["login", server.baseURL, "--json"], stdin: token, extraEnvironment: Self.bus(session))
        #expect(login.code == 0, "\(login.err)")
        #expect(login.out.contains("\"token_store\":\"keyring\""), "\(login.out)")
        let name = try await Self.item("alice@127.0.0.1:\(server.port)", of: cli)
        #expect(try await session.itemCount(matching: ["service": "gitbay-sync", "account": name]) == 1)
        #expect(!Self.databaseBytes(cli).contains(token))
        #expect(!Self.databaseBytes(cli).contains("gb_"))

        #expect(await cli.run(["device", "set-token"], stdin: Self.deviceToken, extraEnvironment: Self.bus(session)).code == 0)
        let monitor = try await session.monitor()
        let run = await cli.run(["run"], extraEnvironment: Self.bus(session))
        let calls = monitor.stop()
        #expect(run.code == 0, "\(run.err)")
        #expect(server.devices(of: "alice").count == 1)
        #expect(calls.filter { $0 == "org.freedesktop.Secret.Service.SearchItems" }.count == 1, "\(calls)")

        let removed = await cli.run(["remove-account", "alice@127.0.0.1:\(server.port)"], extraEnvironment: Self.bus(session))
        #expect(removed.code == 0, "\(removed.err)")
        #expect(try await session.itemCount(matching: ["service": "gitbay-sync", "account": name]) == 0)
        #expect(server.devices(of: "alice").isEmpty)
    }

    @Test("a locked keyring leaves the account unchecked with that reason: not refused, not removed, and not a success (75)")
    func lockedKeyringWaits() async throws {
        let session = try await SecretServiceSession.start()
        defer { session.stop() }
        let server = try FakeGitbayServer()
        let cli = try CLIHarness()
        #expect(await cli.run(["device", "set-token"], stdin: Self.deviceToken).code == 0)
        let login = await cli.run(["login", server.baseURL], stdin: server.mintToken(for: "alice"), extraEnvironment: Self.bus(session))
        #expect(login.code == 0, "\(login.err)")
        #expect(login.out.contains("kept in the OS keyring"), "\(login.out)")
        try await session.lock()

        let run = await cli.run(["run", "--json"], extraEnvironment: Self.bus(session))
        // A run that checked nothing is a temporary failure, never ok.
        #expect(run.code == ExitCode.busy.rawValue, "\(run.err)")
        #expect(try run.json()["ok"] as? Bool == false, "\(run.out)")
        #expect(run.out.contains("\"unchecked\":\"keyring-locked\""), "\(run.out)")
        #expect(run.out.contains("waiting for the OS keyring, which holds its API token: the keyring is locked"), "\(run.out)")
        #expect(run.err.contains("1 of 1 account could not be checked"), "\(run.err)")
        #expect(!run.out.contains("auth-failed"))
        let store = try await cli.store()
        let account = try #require(try await store.accounts().first)
        #expect(try await store.status(ofAccount: account.id).condition != .authFailed)
        #expect(try await store.tokenPlaces()[account.id] == .keyring)

        let status = await cli.run(["status"], extraEnvironment: Self.bus(session))
        #expect(status.code == ExitCode.partialFailure.rawValue, "\(status.out)")
        #expect(status.out.contains("not checked by the last run"), "\(status.out)")
        #expect(status.out.contains("which is locked"), "\(status.out)")
        let history = await cli.run(["status", "--history", "--json"])
        let runs = try #require(try history.json()["runs"] as? [[String: Any]])
        #expect(runs.first?["result"] as? String == "unchecked", "\(history.out)")
        #expect(runs.first?["unchecked_accounts"] as? [String] == [account.name], "\(history.out)")

        // Unattended: one notification, once the same cause kept it unchecked a second run in a row.
        let fake = cli.folder.path + "/bin"
        let desktop = Self.bus(session).merging(["DISPLAY": ":0", "GITBAY_SYNC_NOTIFY": try DesktopNotificationTests.fakeNotifier(in: fake)]) { $1 }
        #expect(await cli.run(["run", "--unattended"], extraEnvironment: desktop).code == ExitCode.busy.rawValue)
        #expect(DesktopNotificationTests.calls(fake).count == 1, "\(DesktopNotificationTests.calls(fake))")
        #expect(DesktopNotificationTests.calls(fake).first?.last?.contains("two runs in a row could not check it") == true)
        #expect(await cli.run(["run", "--unattended"], extraEnvironment: desktop).code == ExitCode.busy.rawValue)
        #expect(DesktopNotificationTests.calls(fake).count == 1, "once, not every run")

        let doctor = await cli.run(["doctor"], extraEnvironment: Self.bus(session))
        #expect(doctor.out.contains("its API token is in the OS keyring, which could not be read: the keyring is locked"), "\(doctor.out)")
    }

    @Test("remove-account --force with the keyring locked says what is true: the keyring was locked, its item is still there, how to delete it")
    func forcedRemovalWithLockedKeyring() async throws {
        let session = try await SecretServiceSession.start()
        defer { session.stop() }
        let server = try FakeGitbayServer()
        let cli = try CLIHarness()
        #expect(await cli.run(["device", "set-token"], stdin: Self.deviceToken).code == 0)
        let token = server.mintToken(for: "alice", name: "laptop-sync")
        let login = await cli.run(
            ["login", server.baseURL, "--token-name", "laptop-sync"], stdin: token, extraEnvironment: Self.bus(session))
        #expect(login.code == 0, "\(login.err)")
        let name = "alice@127.0.0.1:\(server.port)"
        try await session.lock()

        let removed = await cli.run(["remove-account", name, "--force"], extraEnvironment: Self.bus(session))

        #expect(removed.code == 0, "\(removed.err)")
        let said = removed.out + removed.err
        #expect(!said.contains("the API token is deleted here"), "\(said)")
        #expect(!said.contains("could not be reached"), "\(said)")
        #expect(!said.contains("pasted without --token-name"), "\(said)")
        #expect(said.contains("the keyring is locked"), "\(said)")
        let item = try await Self.item(name, of: cli)
        #expect(said.contains("`secret-tool clear service gitbay-sync account \(ShellWords.quoted(item))`"), "\(said)")
        #expect(said.contains("`ssh git@127.0.0.1 token revoke laptop-sync`"), "\(said)")
        #expect(try await session.itemCount(matching: ["service": "gitbay-sync", "account": item]) == 1, "the item is still there, as said")
        #expect(server.accepts(token))
    }

    @Test("two databases signed in to one account keep a keyring item each: signing out in one leaves the other's token, which still works")
    func twoDatabasesOneAccount() async throws {
        let session = try await SecretServiceSession.start()
        defer { session.stop() }
        let server = try FakeGitbayServer()
        let (first, second) = (try CLIHarness(), try CLIHarness())
        let name = "alice@127.0.0.1:\(server.port)"
        for cli in [first, second] {
            #expect(await cli.run(["device", "set-token"], stdin: Self.deviceToken).code == 0)
            let login = await cli.run(["login", server.baseURL], stdin: server.mintToken(for: "alice"), extraEnvironment: Self.bus(session))
            #expect(login.code == 0, "\(login.err)")
            #expect(login.out.contains("kept in the OS keyring"), "\(login.out)")
        }
        #expect(try await session.itemCount(matching: ["service": "gitbay-sync"]) == 2, "an item each")

        let removed = await first.run(["remove-account", name], extraEnvironment: Self.bus(session))
        #expect(removed.code == 0, "\(removed.err)")

        #expect(try await session.itemCount(matching: ["service": "gitbay-sync", "account": try await Self.item(name, of: second)]) == 1)
        let run = await second.run(["run", "--json"], extraEnvironment: Self.bus(session))
        #expect(run.code == 0, "the other database's token is still there and works: \(run.out) \(run.err)")
        #expect(server.devices(of: "alice").count == 1)
    }

    @Test("run rotates a minted token the keyring holds: one read, the successor in an item of its own, the old item gone; the next run uses it")
    func rotation() async throws {
        let session = try await SecretServiceSession.start()
        defer { session.stop() }
        let server = try FakeGitbayServer()
        let cli = try CLIHarness()
        #expect(await cli.run(["device", "set-token"], stdin: Self.deviceToken).code == 0)
        let tokenName = "gitbay-sync-laptop-" + (try await cli.store().device().installMarker)
        let old = server.mintToken(for: "alice", name: tokenName, lifetime: .seconds(90 * 86_400))
        let login = await cli.run(["login", server.baseURL, "--token-name", tokenName], stdin: old, extraEnvironment: Self.bus(session))
        #expect(login.code == 0, "\(login.err)")
        let name = "alice@127.0.0.1:\(server.port)"
        // Its expiry and lifetime, as `login --ssh` records them.
        try await cli.store().access { database in
            try database.run(
                "UPDATE api_tokens SET expires_at = ?, lifetime_seconds = ?", .text(Timestamp.format(Date().addingTimeInterval(90 * 86_400 - 1))),
                .integer(90 * 86_400))
        }
        let later: @Sendable () -> Date = { Date().addingTimeInterval(61 * 86_400) }

        let monitor = try await session.monitor()
        let run = await cli.run(["run", "--json"], extraEnvironment: Self.bus(session)) { $0.now = later }
        let calls = monitor.stop()
        #expect(run.code == 0, "\(run.err)")
        // One read of every token (a deletion searches too, a read alone fetches secrets), one write, one deletion.
        let count = { (call: String) in calls.filter { $0 == "org.freedesktop.Secret." + call }.count }
        #expect(count("Service.GetSecrets") == 1 && count("Collection.CreateItem") == 1 && count("Item.Delete") == 1, "\(calls)")
        let successor = try #require(server.tokens(of: "alice").first { $0.name.hasPrefix(tokenName + "-r") })
        #expect(run.out.contains("\"token_rotated_to\":\"\(successor.name)\""), "\(run.out)")
        #expect(!server.accepts(old) && server.accepts(successor.value))
        #expect(try await session.itemCount(matching: ["service": "gitbay-sync"]) == 1)
        #expect(try await session.itemCount(matching: ["service": "gitbay-sync", "account": name + " " + successor.name]) == 1)
        #expect(!Self.databaseBytes(cli).contains("gb_"), "the database holds only the item's name")

        let next = await cli.run(["run", "--json"], extraEnvironment: Self.bus(session)) { $0.now = later }
        #expect(next.code == 0 && next.out.contains("\"condition\":\"registered\""), "\(next.out) \(next.err)")
        let removed = await cli.run(["remove-account", name], extraEnvironment: Self.bus(session)) { $0.now = later }
        #expect(removed.code == 0, "\(removed.err)")
        #expect(try await session.itemCount(matching: ["service": "gitbay-sync"]) == 0)
        #expect(!server.accepts(successor.value))
    }

    @Test("without a keyring, login keeps the token in the database and says so, doctor warns; --token-store keyring stores nothing and exits 69")
    func noKeyring() async throws {
        let server = try FakeGitbayServer()
        let cli = try CLIHarness()
        let refused = await cli.run(["login", server.baseURL, "--token-store", "keyring"], stdin: server.mintToken(for: "bob"))
        #expect(refused.code == 69, "\(refused.err)")
        #expect(refused.err.contains("could not keep the API token in the OS keyring"), "\(refused.err)")
        #expect(refused.err.contains("nothing was stored"))
        #expect(!FileManager.default.fileExists(atPath: cli.databasePath), "no database was created")
        #expect(try await cli.store().accounts().isEmpty)

        let login = await cli.run(["login", server.baseURL], stdin: server.mintToken(for: "alice"))
        #expect(login.code == 0, "\(login.err)")
        #expect(
            login.out.contains("kept in the state database (a file only you can read) for now, not in a keyring: no D-Bus session bus"),
            "\(login.out)")
        let json = await cli.run(["login", server.baseURL, "--json"], stdin: server.mintToken(for: "alice"))
        #expect(json.out.contains("\"token_store\":\"database\""), "\(json.out)")
        #expect(json.out.contains("\"keyring_unavailable\":\"no D-Bus session bus"), "\(json.out)")

        let doctor = await cli.run(["doctor", "--json"])
        #expect(doctor.out.contains("\"name\":\"account.token_store\""), "\(doctor.out)")
        #expect(doctor.out.contains("in the state database (a file only you can read) until a keyring answers"))
    }

    @Test("a database an earlier version wrote: the next run with a keyring moves its token there and wipes it from the files")
    func moveExistingDatabase() async throws {
        let session = try await SecretServiceSession.start()
        defer { session.stop() }
        let server = try FakeGitbayServer()
        let cli = try CLIHarness()
        let token = server.mintToken(for: "alice")
        try Self.writeEarlierDatabase(at: cli.databasePath, instance: server.baseURL, port: server.port, token: token)
        #expect(await cli.run(["device", "set-token"], stdin: Self.deviceToken).code == 0)
        #expect(Self.databaseBytes(cli).contains(token), "the earlier version's copy is in the file")
        let name = "alice@127.0.0.1:\(server.port)"
        let doctor = await cli.run(["doctor"])
        #expect(doctor.out.contains("until a keyring answers"), "\(doctor.out)")

        let run = await cli.run(["run"], extraEnvironment: Self.bus(session))
        #expect(run.code == 0, "\(run.err)")
        #expect(run.out.contains("API token moved into the OS keyring"), "the run says what it did: \(run.out)")
        #expect(server.devices(of: "alice").count == 1)
        #expect(try await session.itemCount(matching: ["service": "gitbay-sync", "account": try await Self.item(name, of: cli)]) == 1)
        #expect(!Self.databaseBytes(cli).contains(token))
        #expect(!Self.databaseBytes(cli).contains("gb_"))
        #expect(try await cli.store().tokenPlaces().values.map { $0 } == [.keyring])
    }

    /// A state database as migration 7 left it, with one account and its token in the file.
    private static func writeEarlierDatabase(at path: String, instance: String, port: UInt16, token: String) throws {
        let folder = (path as NSString).deletingLastPathComponent
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let database = try Database(path: path)
        try Migrator(migrations: Array(Migration.all.prefix(7))).migrate(database, now: "2026-01-01T00:00:00.000Z")
        try database.run(
            "INSERT INTO accounts (instance, username, name, state, signed_in_at) VALUES (?, 'alice', ?, 'active', '2026-01-01T00:00:00.000Z')",
            .text(instance), .text("alice@127.0.0.1:\(port)"))
        try database.run("INSERT INTO api_tokens (account_id, token) VALUES (1, ?)", .text(token))
        _ = try database.scalarText("PRAGMA journal_mode = WAL")
    }
}
