import Foundation
import TestSupport
import Testing

@testable import GitbayState
@testable import GitbaySupport

@Suite("State store")
struct StateStoreTests {
    @Test("a created folder is 0700 and the database 0600; a folder that was there keeps its mode, a readable database is tightened")
    func permissions() async throws {
        let folder = try TemporaryDirectory()
        let location = folder.location
        _ = try await StateStore.open(location)
        #expect(fileMode(location.directory) == 0o700)
        #expect(fileMode(location.databasePath) == 0o600)
        chmod(location.directory, 0o755)
        chmod(location.databasePath, 0o644)
        let store = try await StateStore.open(location)
        _ = try await store.device()
        #expect(fileMode(location.directory) == 0o755)
        #expect(fileMode(location.databasePath) == 0o600)
        #expect(fileMode(location.databasePath + "-wal") == 0o600)
    }

    @Test("a database other users can write is refused, naming the fix, and left as it was")
    func writableByOthers() async throws {
        let folder = try TemporaryDirectory()
        let location = folder.location
        _ = try await StateStore.open(location)
        chmod(location.databasePath, 0o664)
        let bytes = fileBytes(location.databasePath)
        let error = await #expect(throws: StoreError.self) { try await StateStore.open(location) }
        #expect(error == .writableByOthers(path: location.databasePath, mode: 0o664))
        #expect(error?.description.contains("chmod 600 \(location.databasePath)") == true)
        #expect(fileMode(location.databasePath) == 0o664)
        #expect(fileBytes(location.databasePath) == bytes)
    }

    @Test("opening an existing database only: a missing one is refused and nothing is created")
    func openExisting() async throws {
        let folder = try TemporaryDirectory()
        let location = folder.location
        let error = await #expect(throws: StoreError.self) { try await StateStore.openExisting(location) }
        #expect(error == .noDatabase(path: location.databasePath))
        #expect(!FileManager.default.fileExists(atPath: location.directory))
        _ = try await StateStore.open(location)
        _ = try await StateStore.openExisting(location)
    }

    @Test("a database owned by another user is refused")
    func foreignOwner() async throws {
        guard geteuid() == 0 else { return }  // only root can hand a file to someone else
        let folder = try TemporaryDirectory()
        let location = folder.location
        _ = try await StateStore.open(location)
        chown(location.databasePath, 65534, 65534)
        let error = await #expect(throws: StoreError.self) { try await StateStore.open(location) }
        #expect(error == .foreignOwner(path: location.databasePath, owner: 65534))
    }

    @Test("a state folder that is a file is refused with its path")
    func folderIsAFile() async throws {
        let folder = try TemporaryDirectory()
        #expect(FileManager.default.createFile(atPath: folder.file("state"), contents: Data("x".utf8)))
        let error = await #expect(throws: StoreError.self) { try await StateStore.open(folder.location) }
        #expect(error?.description.contains(folder.file("state")) == true)
    }

    @Test("the path comes from --db, then GITBAY_SYNC_DB, then XDG_STATE_HOME, then HOME")
    func resolution() {
        let env = ["GITBAY_SYNC_DB": "/e/db", "XDG_STATE_HOME": "/x", "HOME": "/h"]
        #expect(StateLocation.resolve(explicitPath: "/a/db", environment: env).databasePath == "/a/db")
        #expect(StateLocation.resolve(explicitPath: nil, environment: env).databasePath == "/e/db")
        #expect(
            StateLocation.resolve(explicitPath: nil, environment: ["XDG_STATE_HOME": "/x", "HOME": "/h"]).databasePath
                == "/x/gitbay-sync/state.db")
        #expect(
            StateLocation.resolve(explicitPath: nil, environment: ["XDG_STATE_HOME": "relative", "HOME": "/h"]).databasePath
                == "/h/.local/state/gitbay-sync/state.db")
        #expect(
            StateLocation.resolve(explicitPath: nil, environment: ["HOME": "/h"]).databasePath
                == "/h/.local/state/gitbay-sync/state.db")
    }

    @Test("a lease is taken once: another holder of a live process is refused, the same holder holds it already, and it comes back when given back")
    func leases() async throws {
        let folder = try TemporaryDirectory()
        let store = try await StateStore.open(folder.location)
        let account = try await store.signIn(instance: try InstanceURL(parsing: "https://gitbay.test"), username: "alice", apiToken: Secret("gb_x"))
        let first = LeaseHolder.new()
        let second = LeaseHolder.new()
        #expect(try await store.takeLeases([account.id], holder: first).taken == [account.id])
        #expect(try await store.takeLeases([account.id], holder: first).alreadyHeld == [account.id])
        let refused = try await store.takeLeases([account.id], holder: second)
        #expect(refused.taken.isEmpty)
        #expect(refused.heldElsewhere[account.id]?.holderID == first.id)
        try await store.releaseLeases([account.id], holder: second)
        #expect(try await store.leases().count == 1, "only the holder gives a lease back")
        try await store.releaseLeases([account.id], holder: first)
        #expect(try await store.takeLeases([account.id], holder: second).taken == [account.id])
        // A signed-out account has no lease, and none can be taken for it.
        try await store.setState(.removing, ofAccount: account.id)
        let removing = try #require(try await store.account(id: account.id))
        #expect(try await store.deleteAccount(id: account.id, removalStartedAt: removing.removalStartedAt) == .deleted(wiped: true))
        #expect(try await store.leases().isEmpty)
        #expect(try await store.takeLeases([account.id], holder: first).taken.isEmpty)
        #expect(try await store.leases().isEmpty)
    }

    @Test("a lease whose process is gone, or which outlived its expiry, is taken over")
    func staleLeases() async throws {
        let folder = try TemporaryDirectory()
        let store = try await StateStore.open(folder.location)
        let account = try await store.signIn(instance: try InstanceURL(parsing: "https://gitbay.test"), username: "alice", apiToken: Secret("gb_x"))
        // A process that has exited: its pid names no process (until reused, which expiry covers).
        let gone = try SpawnedChild.spawn("/bin/true", [], environment: [:], descriptors: [:])
        _ = ChildProcess.waitForExit(gone.pid)
        let dead = LeaseHolder(pid: gone.pid, id: "dead")
        #expect(try await store.takeLeases([account.id], holder: dead).taken == [account.id])
        #expect(try await store.takeLeases([account.id], holder: LeaseHolder.new()).taken == [account.id])

        let live = LeaseHolder.new()
        try await store.releaseLeases(
            [account.id], holder: try #require(try await store.leases().first.map { LeaseHolder(pid: $0.holderPID, id: $0.holderID) }))
        #expect(try await store.takeLeases([account.id], holder: live).taken == [account.id])
        let later = Date().addingTimeInterval(Double(StateStore.leaseDuration.components.seconds) + 1)
        #expect(try await store.takeLeases([account.id], holder: LeaseHolder.new(), now: later).taken == [account.id])
    }

    @Test("signing in stores the account and its token apart; deleting removes both from the file")
    func accountLifecycle() async throws {
        let folder = try TemporaryDirectory()
        let store = try await StateStore.open(folder.location)
        let instance = try InstanceURL(parsing: "https://Gitbay.ORG/")
        let token = "gb_0123456789abcdef_secret_for_erasure"
        let account = try await store.signIn(instance: instance, username: "alice", apiToken: Secret(token))
        #expect(account.name == "alice@gitbay.org")
        #expect(try await store.apiToken(ofAccount: account.id) == Secret(token))
        #expect(try await store.accounts().map(\.name) == ["alice@gitbay.org"])
        try await store.setState(.removing, ofAccount: account.id)
        let removing = try #require(try await store.account(id: account.id))
        #expect(try await store.deleteAccount(id: account.id, removalStartedAt: removing.removalStartedAt) == .deleted(wiped: true))
        #expect(try await store.accounts().isEmpty)
        #expect(try await store.apiToken(ofAccount: account.id) == nil)
        for suffix in ["", "-wal"] {
            let bytes = fileBytes(folder.location.databasePath + suffix) ?? Data()
            #expect(bytes.range(of: Data(token.utf8)) == nil, "token bytes remain in state.db\(suffix)")
        }
    }

    @Test("a deletion ends only the removal it began with: a sign-in or a new state meanwhile wins")
    func deletionChecksTheRemoval() async throws {
        let folder = try TemporaryDirectory()
        let store = try await StateStore.open(folder.location)
        let instance = try InstanceURL(parsing: "https://gitbay.test")
        let account = try await store.signIn(instance: instance, username: "alice", apiToken: Secret("gb_first"))
        #expect(try await store.deleteAccount(id: account.id, removalStartedAt: nil) == .notRemoving, "an active account")

        try await store.setState(.removing, ofAccount: account.id, now: Date(timeIntervalSince1970: 1000))
        let first = try #require(try await store.account(id: account.id))
        try await store.setState(.removing, ofAccount: account.id, now: Date(timeIntervalSince1970: 2000))
        #expect(try await store.account(id: account.id)?.removalStartedAt == first.removalStartedAt, "asked again: the same removal")

        try await store.signIn(instance: instance, username: "alice", apiToken: Secret("gb_second"))
        #expect(try await store.deleteAccount(id: account.id, removalStartedAt: first.removalStartedAt) == .notRemoving)
        try await store.setState(.removing, ofAccount: account.id, now: Date(timeIntervalSince1970: 3000))
        #expect(try await store.deleteAccount(id: account.id, removalStartedAt: first.removalStartedAt) == .notRemoving, "a later removal")
        #expect(try await store.apiToken(ofAccount: account.id) == Secret("gb_second"))

        let second = try #require(try await store.account(id: account.id))
        #expect(try await store.deleteAccount(id: account.id, removalStartedAt: second.removalStartedAt) == .deleted(wiped: true))
        #expect(try await store.account(id: account.id) == nil)
    }

    @Test("a sign-in keeps what is known of its token, a new sign-in replaces it, and account facts carry it")
    func tokenDetails() async throws {
        let folder = try TemporaryDirectory()
        let store = try await StateStore.open(folder.location)
        let instance = try InstanceURL(parsing: "https://gitbay.test")
        // A whole second, which reads back as the same instant.
        let expiry = try #require(Timestamp.parse("2027-01-02T03:04:05.000Z"))
        let minted = APITokenDetails(name: "gitbay-sync-laptop-gbs-abc123", expiresAt: expiry)

        let account = try await store.signIn(instance: instance, username: "alice", apiToken: Secret("gb_first"), details: minted)

        #expect(try await store.apiTokenDetails(ofAccount: account.id) == minted)
        #expect(try await store.accountFacts().tokenDetails == [account.id: minted])
        try await store.signIn(instance: instance, username: "alice", apiToken: Secret("gb_second"), details: APITokenDetails(name: "pasted"))
        #expect(try await store.apiTokenDetails(ofAccount: account.id) == APITokenDetails(name: "pasted"), "the old expiry went with the old token")
        try await store.signIn(instance: instance, username: "alice", apiToken: Secret("gb_third"))
        #expect(try await store.apiTokenDetails(ofAccount: account.id) == .unknown)
        #expect(try await store.apiTokenDetails(ofAccount: account.id + 1) == nil)
    }

    @Test("a device row made after a marker was chosen carries that marker; one already there keeps its own")
    func chosenInstallMarker() async throws {
        let folder = try TemporaryDirectory()
        let store = try await StateStore.open(folder.location)
        #expect(try await store.device(installMarker: "gbs-chosen").installMarker == "gbs-chosen")
        #expect(try await store.device(installMarker: "gbs-other").installMarker == "gbs-chosen")
        #expect(try await store.device().installMarker == "gbs-chosen")
    }

    @Test("a deletion says when another connection's read keeps the token's bytes in the files")
    func deletionBlockedCheckpoint() async throws {
        let folder = try TemporaryDirectory()
        let store = try await StateStore.open(folder.location)
        let account = try await store.signIn(instance: try InstanceURL(parsing: "https://gitbay.test"), username: "alice", apiToken: Secret("gb_x"))
        try await store.setState(.removing, ofAccount: account.id)
        let removing = try #require(try await store.account(id: account.id))
        // Another process with a read open on the database, as a `status` in progress would.
        let reader = try Database(path: folder.location.databasePath, mode: .readWrite, busyTimeoutMilliseconds: 0)
        try reader.execute("BEGIN")
        _ = try reader.scalarText("SELECT count(*) FROM accounts")
        let deletion = try await store.deleteAccount(id: account.id, removalStartedAt: removing.removalStartedAt)
        try reader.execute("COMMIT")
        #expect(deletion == .deleted(wiped: false))
        #expect(try await store.account(id: account.id) == nil)
    }

    @Test("an account stored under a spelling that is no longer canonical is renamed at open; one that would clash is left")
    func storedSpellingsCanonicalised() async throws {
        let folder = try TemporaryDirectory()
        let location = folder.location
        do {
            let store = try await StateStore.open(location)
            try await store.signIn(instance: try InstanceURL(parsing: "https://gitbay.org"), username: "ann", apiToken: Secret("gb_a"))
            try await store.signIn(instance: try InstanceURL(parsing: "http://127.0.0.1:8080"), username: "ben", apiToken: Secret("gb_b"))
            try await store.signIn(instance: try InstanceURL(parsing: "http://127.0.0.1:8080"), username: "cy", apiToken: Secret("gb_c"))
        }
        do {
            // As an earlier version stored them.
            let database = try Database(path: location.databasePath)
            try database.execute(
                """
                UPDATE accounts SET instance = 'https://gitbay.org.', name = 'ann@gitbay.org.' WHERE username = 'ann';
                UPDATE accounts SET instance = 'http://127.000.000.001:8080', name = 'ben@127.000.000.001:8080' WHERE username = 'ben';
                INSERT INTO accounts (instance, username, name, state, signed_in_at)
                    VALUES ('http://127.00.0.1:8080', 'cy', 'cy@127.00.0.1:8080', 'active', '2026-01-01T00:00:00.000Z');
                """)
        }
        let store = try await StateStore.open(location)
        let names = try await store.accounts().map(\.name).sorted()
        #expect(names == ["ann@gitbay.org", "ben@127.0.0.1:8080", "cy@127.0.0.1:8080", "cy@127.00.0.1:8080"])
        #expect(try await store.account(named: "ann@gitbay.org")?.instance.description == "https://gitbay.org")
    }

    @Test("a new device token is a rotation: the old one joins the history by fingerprint, length and display")
    func rotation() async throws {
        let folder = try TemporaryDirectory()
        let store = try await StateStore.open(folder.location)
        let fresh = try await store.device()
        #expect(fresh.token == nil)
        #expect(fresh.generation == 0)
        #expect(fresh.installMarker.hasPrefix("gbs-"))
        let first = try await store.setDeviceToken(Secret("aaaaaaaa11112222"), label: "laptop")
        #expect(first.generation == 1)
        #expect(first.label == "laptop")
        let second = try await store.setDeviceToken(Secret("bbbbbbbb33334444"), label: nil)
        #expect(second.generation == 2)
        #expect(second.label == "laptop")
        #expect(
            second.history == [
                RetiredToken(
                    generation: 1, prefix: "aaaaaaaa", token: TokenIdentity(of: Secret("aaaaaaaa11112222")), retiredAt: second.history[0].retiredAt
                )
            ])
        #expect(second.history[0].token.shown == "aaaaaaaa\u{2026}")
        #expect(second.history[0].token.length == 16)
        let same = try await store.setDeviceToken(Secret("bbbbbbbb33334444"), label: nil)
        #expect(same.generation == 2)
        #expect(same.installMarker == fresh.installMarker)
    }
}

extension TemporaryDirectory {
    /// A database location inside the folder (in a `state` subfolder not yet created).
    var location: StateLocation { StateLocation(databasePath: databasePath) }
}
