import Foundation
import GitbayFake
import TestSupport
import Testing

@testable import GitbayAPI
@testable import GitbayReconcile
@testable import GitbayState
@testable import GitbaySupport
@testable import GitbaySync
@testable import PushResolve

@Suite("Migrations")
struct MigratorTests {
    @Test("the embedded migrations are numbered 1, 2, 3 … in order")
    func numbering() {
        #expect(!Migration.all.isEmpty)
        #expect(Migration.all.map(\.version) == Array(1...Migration.all.count))
    }

    @Test("the embedded SQL is byte for byte the Migrations folder")
    func embeddedMatchesFolder() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        let folder = root.appendingPathComponent("Migrations")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".sql") }.sorted()
        #expect(files.count == Migration.all.count)
        for (file, migration) in zip(files, Migration.all) {
            let text = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
            #expect(file == String(format: "%04d_%@.sql", migration.version, migration.name))
            // The generator keeps the file's text but its final newline.
            #expect(text == migration.sql + "\n", "run scripts/generate-migrations after editing \(file)")
        }
    }

    @Test("each embedded checksum is the fingerprint of its SQL, as every database recorded it")
    func embeddedChecksums() {
        for migration in Migration.all {
            #expect(migration.checksum == Migration.fingerprint(migration.sql), "run scripts/generate-migrations: \(migration.name)")
        }
        // The first migration's, as every database made so far recorded it: the fingerprint itself never changes.
        #expect(Migration.all.first?.checksum == "feb186631ca80438")
    }

    @Test("a fresh database gets every migration, and opening again applies nothing")
    func freshThenNoOp() async throws {
        let folder = try TemporaryDirectory()
        let store = try await StateStore.open(folder.location)
        #expect(try await store.appliedMigrations() == Migration.all.map(\.version))
        let database = try Database(path: folder.location.databasePath)
        #expect(try Migrator().migrate(database, now: "2026-01-01T00:00:00.000Z").isEmpty)
        let reopened = try await StateStore.open(folder.location)
        #expect(try await reopened.appliedMigrations() == Migration.all.map(\.version))
        #expect(try await reopened.integrityCheck() == ["ok"])
    }

    @Test("a database holding an unknown migration is refused and left unchanged")
    func unknownMigrationRefused() async throws {
        let folder = try TemporaryDirectory()
        _ = try await StateStore.open(folder.location)
        let path = folder.location.databasePath
        do {
            let database = try Database(path: path)
            try database.run(
                "INSERT INTO schema_migrations (version, name, checksum, applied_at) VALUES (99, 'future', 'x', 'now')"
            )
            try database.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        }
        let before = try #require(fileBytes(path))
        let error = await #expect(throws: StoreError.self) { try await StateStore.open(folder.location) }
        #expect(error == .newerSchema(path: path, unknownVersions: [99]))
        #expect(error.map(FailureText.said)?.contains("newer gitbay-sync") == true)
        #expect(fileBytes(path) == before)
    }

    @Test("a database recording a changed migration is refused and left unchanged")
    func changedMigrationRefused() async throws {
        let folder = try TemporaryDirectory()
        _ = try await StateStore.open(folder.location)
        let path = folder.location.databasePath
        do {
            let database = try Database(path: path)
            try database.run("UPDATE schema_migrations SET checksum = '0000000000000000' WHERE version = 1")
            try database.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        }
        let before = try #require(fileBytes(path))
        let error = await #expect(throws: StoreError.self) { try await StateStore.open(folder.location) }
        #expect(error == .changedMigration(path: path, version: 1, name: "initial"))
        #expect(fileBytes(path) == before)
    }

    @Test("a file that is not SQLite is refused and left unchanged")
    func corruptRefused() async throws {
        let folder = try TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: folder.location.directory, withIntermediateDirectories: true)
        let path = folder.location.databasePath
        let junk = Data((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) })
        try junk.write(to: URL(fileURLWithPath: path))
        let error = await #expect(throws: StoreError.self) { try await StateStore.open(folder.location) }
        guard case .notADatabase(let reported, _) = error else {
            Issue.record("expected notADatabase, got \(String(describing: error))")
            return
        }
        #expect(reported == path)
        #expect(fileBytes(path) == junk)
        #expect(!FileManager.default.fileExists(atPath: path + "-wal"))
    }

    @Test("a token kept in the keyring before migration 10 is still read from the item named after its account; its stale names have no item")
    func keyringReferenceBeforeItems() async throws {
        let folder = try TemporaryDirectory()
        let path = folder.file("state.db")
        let database = try Database(path: path)
        try Migrator(migrations: Array(Migration.all.prefix(9))).migrate(database, now: "2026-01-01T00:00:00.000Z")
        try database.run(
            "INSERT INTO accounts (instance, username, name, state, signed_in_at) VALUES (?, 'alice', ?, 'active', '2026-01-01T00:00:00.000Z')",
            .text("http://127.0.0.1:8080"), .text("alice@127.0.0.1:8080"))
        try database.run("INSERT INTO api_tokens (account_id, name, store) VALUES (1, 'gitbay-sync-laptop-gbs-aaaaaa', 'keyring')")
        try database.run("INSERT INTO stale_api_tokens (account_id, name, recorded_at) VALUES (1, 'old', '2026-01-01T00:00:00.000Z')")
        let store = try await StateStore.open(StateLocation(databasePath: path))
        #expect(try await store.keyringItems() == [1: "alice@127.0.0.1:8080"])
        #expect(try await store.runFacts().keyringItems == [1: "alice@127.0.0.1:8080"])
        let stored = try #require(try await store.storedAPITokens(keyringTokens: [1: Secret("gb_x")])[1])
        #expect(stored.keyringItem == "alice@127.0.0.1:8080" && stored.staleNames == ["old"] && stored.staleItems.isEmpty)
        #expect(try await store.allKeyringItems(ofAccount: 1) == ["alice@127.0.0.1:8080"])
    }

    @Test("a migration that leaves foreign key violations is rolled back")
    func foreignKeyCheck() throws {
        let folder = try TemporaryDirectory()
        let database = try Database(path: folder.file("fk.db"))
        try database.execute("PRAGMA foreign_keys = OFF")
        let migrations = [
            Migration(version: 1, name: "parent", sql: "CREATE TABLE parent (id INTEGER PRIMARY KEY);"),
            Migration(
                version: 2, name: "orphan",
                sql: """
                    CREATE TABLE child (parent_id INTEGER REFERENCES parent (id));
                    INSERT INTO child VALUES (42);
                    """),
        ]
        #expect(throws: SQLiteError.self) { try Migrator(migrations: migrations).migrate(database, now: "t") }
        #expect(try Migrator.recorded(in: database).keys.sorted() == [1])
        let childExists = try database.row("SELECT 1 FROM sqlite_master WHERE name = 'child'") { _ in true }
        #expect(childExists == nil)
    }

    @Test("checksums differ when the SQL differs by one byte")
    func checksum() {
        let a = Migration(version: 1, name: "a", sql: "CREATE TABLE t (x);")
        let b = Migration(version: 1, name: "a", sql: "CREATE TABLE t (y);")
        #expect(a.checksum.count == 16)
        #expect(a.checksum != b.checksum)
        #expect(a.checksum == Migration(version: 1, name: "a", sql: "CREATE TABLE t (x);").checksum)
    }
}

/// A database written by the first release, brought forward by migration 2.
@Suite("Records kept before row identity")
struct LegacyRecordTests {
    @Test("records of the first schema are carried over: the next run completes them from the list with no write, and the learned row policy is gone")
    func firstSchemaRecordsCarryOver() async throws {
        let server = try FakeGitbayServer()
        let cli = try CLIHarness()
        let name = try await cli.login(server, "alice")
        let token = "c0ffee00aaaabbbbccccdddd"
        #expect(await cli.run(["device", "set-token", "--label", "laptop"], stdin: token).code == 0)
        let device = try await cli.store().device()
        let id = server.insertDevice(owner: "alice", token: token, label: device.serverLabel)

        // Rewind the database to the first schema, holding what the first release recorded.
        do {
            let database = try Database(path: cli.databasePath)
            try database.execute(
                """
                DROP TABLE registrations; DROP TABLE device_token_history; DROP TABLE instances;
                DROP TABLE account_leases;
                DROP TABLE unattended_runs; ALTER TABLE account_status DROP COLUMN next_retry_reason;
                DROP TABLE same_servers; ALTER TABLE device DROP COLUMN machine; ALTER TABLE device DROP COLUMN moved_at;
                ALTER TABLE accounts DROP COLUMN removal_started_at;
                ALTER TABLE api_tokens DROP COLUMN name; ALTER TABLE api_tokens DROP COLUMN expires_at;
                DROP TABLE stale_api_tokens; ALTER TABLE api_tokens DROP COLUMN lifetime_seconds;
                ALTER TABLE accounts DROP COLUMN removal_step_passed_for; ALTER TABLE accounts DROP COLUMN ssh_destination;
                DROP TABLE run_history; DROP TABLE distinct_servers;
                ALTER TABLE account_status DROP COLUMN unchecked_reason; ALTER TABLE account_status DROP COLUMN unchecked_since;
                ALTER TABLE account_status DROP COLUMN unchecked_runs; DROP TABLE row_doubts; DROP TABLE pending_mints;
                ALTER TABLE accounts DROP COLUMN push_off; DROP TABLE doubts_raised;
                DROP TABLE steady_checks; ALTER TABLE account_status DROP COLUMN steady_times;
                DROP INDEX accounts_sign_in_order;
                DELETE FROM schema_migrations WHERE version > 1;
                """)
            let first = Migration.all[0].sql
            for table in ["device_token_history", "instances", "registrations"] {
                let start = try #require(first.range(of: "CREATE TABLE \(table) ("))
                let end = try #require(first[start.lowerBound...].range(of: ") STRICT;"))
                try database.execute(String(first[start.lowerBound..<end.upperBound]))
            }
            let accountID = try #require(try database.row("SELECT id FROM accounts") { row throws(SQLiteError) in try row.int64("id") })
            try database.run("INSERT INTO instances (instance, row_policy) VALUES (?, 'per-account')", .text(server.baseURL))
            try database.run(
                "INSERT INTO registrations (account_id, device_id, token_generation, token_prefix, made_at, verified_at) VALUES (?, ?, 1, 'c0ffee00', 'then', 'then')",
                .integer(accountID), .int(id)
            )
        }

        server.resetRequests()
        let run = await cli.run(["run", "--json"])
        #expect(run.code == 0, "\(run.err)")
        #expect(!server.requests().contains { $0.isWrite })
        #expect(try RunOutcomeTests.accounts(run)[name]?["condition"] as? String == "registered")
        let store = try await cli.store()
        #expect(try await store.appliedMigrations() == Migration.all.map(\.version))
        let records = try await store.registrations(ofAccount: try #require(try await store.account(named: name)).id)
        #expect(records.map(\.deviceID) == [id])
        #expect(records.first?.added != nil)
        #expect(records.first?.token.fingerprint == TokenIdentity(of: Secret(token)).fingerprint)

        server.resetRequests()
        #expect(await cli.run(["run"]).code == 0)
        #expect(server.requests().map(\.status) == [304])
    }
}

extension TemporaryDirectory {
    /// A database location inside the folder (in a `state` subfolder not yet created).
    var location: StateLocation { StateLocation(databasePath: databasePath) }
}
