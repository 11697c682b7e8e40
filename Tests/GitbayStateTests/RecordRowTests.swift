import Foundation
import GitbaySupport
import TestSupport
import Testing

@testable import GitbayState

/// Every record is read from its row by column name: each test selects the columns in another
/// order than the store does, so a reader by position would take one column for another.
@Suite("Records read by column name")
struct RecordRowTests {
    static let instance = try! InstanceURL(parsing: "https://gitbay.test")
    static let other = try! InstanceURL(parsing: "https://mirror.gitbay.test")
    static let early = "2026-01-02T03:04:05.006Z"
    static let late = "2026-02-03T04:05:06.007Z"
    static func date(_ text: String) -> Date { Timestamp.parse(text)! }

    @Test("an account")
    func account() throws {
        let store = try RecordDatabase()
        let read = try store.database.row(
            "SELECT push_off, name, ssh_destination, instance, id, removal_started_at, username, signed_in_at, state FROM accounts"
        ) { row throws(SQLiteError) in try AccountRecord(row: row) }
        let expected = AccountRecord(
            id: 7, instance: Self.instance, username: "alice", name: "alice@gitbay.test", state: .removing,
            signedInAt: Self.date(Self.early), removalStartedAt: Self.date(Self.late), sshDestination: "git@ssh.gitbay.test:2222", pushOff: true)
        #expect(read == expected)
    }

    @Test("what is known of an API token")
    func apiToken() throws {
        let store = try RecordDatabase()
        let read = try store.database.row("SELECT lifetime_seconds, expires_at, name FROM api_tokens") { row throws(SQLiteError) in
            try APITokenDetails(row: row)
        }
        #expect(read == APITokenDetails(name: "gitbay-sync-laptop-mk7", expiresAt: Self.date(Self.late), lifetime: .seconds(7_776_000)))
    }

    @Test("an instance")
    func instance() throws {
        let store = try RecordDatabase()
        let read = try store.database.row("SELECT preferred_account_id, instance FROM instances") { row throws(SQLiteError) in
            try InstanceRecord(row: row)
        }
        #expect(read == InstanceRecord(instance: Self.instance, preferredAccountID: 7))
    }

    @Test("the device and a retired token")
    func device() throws {
        let store = try RecordDatabase()
        let history = try store.database.rows(
            "SELECT shown, retired_at, length, generation, fingerprint, prefix FROM device_token_history"
        ) { row throws(SQLiteError) in try RetiredToken(row: row) }
        let retired = RetiredToken(
            generation: 2, prefix: "abcdefgh", token: TokenIdentity(fingerprint: "f00d", length: 16, shown: "abcdefgh\u{2026}"),
            retiredAt: Self.date(Self.early))
        #expect(history == [retired])
        let read = try store.database.row(
            "SELECT moved_at, machine, install_marker, token_set_at, label, token_generation, token FROM device"
        ) { row throws(SQLiteError) in try DeviceRecord(row: row, history: history) }
        var expected = DeviceRecord(
            token: Secret("tok_now"), generation: 3, label: "laptop", installMarker: "mk7", tokenSetAt: Self.date(Self.early),
            history: [retired])
        expected.machine = "cafe"
        expected.movedAt = Self.date(Self.late)
        #expect(read == expected)
    }

    @Test("a registration")
    func registration() throws {
        let store = try RecordDatabase()
        let read = try store.database.row(
            """
            SELECT made_at, token_generation, token_prefix, token_shown, token_length, token_fingerprint, added, device_id, account_id
            FROM registrations
            """
        ) { row throws(SQLiteError) in try RegistrationRecord(row: row) }
        let expected = RegistrationRecord(
            accountID: 7, deviceID: 41, added: "2026-01-01 00:00:00",
            token: TokenIdentity(fingerprint: "beef", length: 20, shown: "zyxwvuts\u{2026}"), generation: 3, madeAt: Self.date(Self.late))
        #expect(read == expected)
    }

    @Test("an account's status")
    func status() throws {
        let store = try RecordDatabase()
        let read = try store.database.row(
            """
            SELECT unchecked_runs, unchecked_since, unchecked_reason, next_retry_reason, etag_basis, list_etag, failures, next_retry_at,
                last_error, last_success_at, last_attempt_at, detail, condition
            FROM account_status
            """
        ) { row throws(SQLiteError) in try AccountStatusRecord(row: row) }
        var expected = AccountStatusRecord(
            condition: .error, detail: "a detail", lastAttemptAt: Self.date(Self.late), lastSuccessAt: Self.date(Self.early),
            lastError: "it broke", nextRetryAt: Self.date(Self.late), nextRetryReason: .retryAfter, failures: 4, listETag: "\"e\"",
            etagBasis: "basis")
        expected.unchecked = Unchecked(reason: .keyringLocked, since: Self.date(Self.early), runs: 2)
        #expect(read == expected)
    }

    @Test("a lease")
    func lease() throws {
        let store = try RecordDatabase()
        let read = try store.database.row("SELECT expires_at, taken_at, holder_id, holder_pid, account_id FROM account_leases") {
            row throws(SQLiteError) in try LeaseRecord(row: row)
        }
        let expected = LeaseRecord(accountID: 7, holderPID: 4321, holderID: "h1", takenAt: Self.date(Self.early), expiresAt: Self.date(Self.late))
        #expect(read == expected)
    }

    @Test("a proof that two URLs name one server")
    func sameServer() throws {
        let store = try RecordDatabase()
        let read = try store.database.row("SELECT proven_at, added, device_id, other, instance FROM same_servers") { row throws(SQLiteError) in
            try SameServerRecord(row: row)
        }
        let expected = SameServerRecord(
            instance: Self.instance, other: Self.other, deviceID: 41, added: "2026-01-01 00:00:00", provenAt: Self.date(Self.late))
        #expect(read == expected)
    }

    @Test("an unattended run")
    func unattendedRun() throws {
        let store = try RecordDatabase()
        let read = try store.database.row(
            """
            SELECT unchecked_accounts, pid, period_seconds, waiting, failed_accounts, accounts, result, finished_at, started_at, trigger
            FROM unattended_runs
            """
        ) { row throws(SQLiteError) in try UnattendedRunRecord(row: row) }
        let expected = UnattendedRunRecord(
            trigger: .every, startedAt: Self.date(Self.early), finishedAt: Self.date(Self.late), result: .failed, accounts: 3,
            failedAccounts: ["alice@gitbay.test", "bob@gitbay.test"], waiting: 1, period: .seconds(600), pid: 4321,
            uncheckedAccounts: ["carol@gitbay.test"])
        #expect(read == expected)
    }
}

/// A database with the store's schema and one row in each table a record is read from.
final class RecordDatabase {
    let folder: TemporaryDirectory
    let database: Database

    init() throws {
        folder = try TemporaryDirectory()
        database = try Database(path: folder.file("records.db"))
        try Migrator().migrate(database, now: RecordRowTests.early)
        let (early, late) = (RecordRowTests.early, RecordRowTests.late)
        try database.execute(
            """
            INSERT INTO accounts (id, instance, username, name, state, signed_in_at, removal_started_at, ssh_destination, push_off)
                VALUES (7, 'https://gitbay.test', 'alice', 'alice@gitbay.test', 'removing', '\(early)', '\(late)', 'git@ssh.gitbay.test:2222', 1);
            INSERT INTO api_tokens (account_id, token, name, expires_at, lifetime_seconds) VALUES (7, 'gb_x', 'gitbay-sync-laptop-mk7', '\(late)', 7776000);
            INSERT INTO instances (instance, preferred_account_id, preferred_at) VALUES ('https://gitbay.test', 7, '\(early)');
            INSERT INTO device (id, token, token_generation, label, install_marker, token_set_at, machine, moved_at)
                VALUES (1, 'tok_now', 3, 'laptop', 'mk7', '\(early)', 'cafe', '\(late)');
            INSERT INTO device_token_history (generation, prefix, retired_at, fingerprint, length, shown)
                VALUES (2, 'abcdefgh', '\(early)', 'f00d', 16, 'abcdefgh…');
            INSERT INTO registrations (account_id, device_id, added, token_fingerprint, token_length, token_shown, token_prefix,
                token_generation, made_at)
                VALUES (7, 41, '2026-01-01 00:00:00', 'beef', 20, 'zyxwvuts…', 'zyxwvuts', 3, '\(late)');
            INSERT INTO account_status (account_id, condition, detail, last_attempt_at, last_success_at, last_error, next_retry_at,
                failures, list_etag, etag_basis, next_retry_reason, unchecked_reason, unchecked_since, unchecked_runs)
                VALUES (7, 'error', 'a detail', '\(late)', '\(early)', 'it broke', '\(late)', 4, '"e"', 'basis', 'retry-after',
                    'keyring-locked', '\(early)', 2);
            INSERT INTO account_leases (account_id, holder_pid, holder_id, taken_at, expires_at) VALUES (7, 4321, 'h1', '\(early)', '\(late)');
            INSERT INTO same_servers (instance, other, device_id, added, proven_at)
                VALUES ('https://gitbay.test', 'https://mirror.gitbay.test', 41, '2026-01-01 00:00:00', '\(late)');
            INSERT INTO unattended_runs (trigger, started_at, finished_at, result, accounts, failed_accounts, waiting, period_seconds, pid,
                unchecked_accounts)
                VALUES ('every', '\(early)', '\(late)', 'failed', 3, 'alice@gitbay.test' || char(10) || 'bob@gitbay.test', 1, 600, 4321,
                    'carol@gitbay.test');
            """)
    }
}
