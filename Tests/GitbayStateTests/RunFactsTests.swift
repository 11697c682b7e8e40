import Foundation
import Synchronization
import TestSupport
import Testing

@testable import GitbayState
@testable import GitbaySupport

@Suite("Run facts and steady verdicts")
struct RunFactsTests {
    static let instance = try! InstanceURL(parsing: "https://gitbay.test")

    @Test("a run's facts are read in one go, writing nothing; a steady verdict's times are written only while the stored verdict is the one read")
    func steadyVerdicts() async throws {
        let folder = try TemporaryDirectory()
        let store = try await StateStore.open(folder.location)
        let alice = try await store.signIn(instance: Self.instance, username: "alice", apiToken: Secret("gb_a"))
        let bob = try await store.signIn(instance: Self.instance, username: "bob", apiToken: Secret("gb_b"))
        _ = try await store.device()
        let registered = AccountStatusRecord(condition: .registered, listETag: "\"t1\"", etagBasis: "b1")
        try await store.saveStatus(registered, ofAccount: alice.id)
        try await store.saveStatus(registered, ofAccount: bob.id)

        let counted = await store.databaseCounters().writeTransactions
        let facts = try await store.runFacts()
        #expect(await store.databaseCounters().writeTransactions == counted)
        #expect(facts.accounts.map(\.id) == [alice.id, bob.id])
        #expect(facts.statuses[alice.id] == registered)
        #expect(facts.apiTokens[bob.id] == Secret("gb_b"))

        // Bob's verdict changes after the run read it: his times are not written over it.
        let changed = AccountStatusRecord(condition: .registered, listETag: "\"t2\"", etagBasis: "b2")
        try await store.saveStatus(changed, ofAccount: bob.id)
        let at = Date(timeIntervalSince1970: 1_800_000_000)
        var succeeded = registered
        (succeeded.lastAttemptAt, succeeded.lastSuccessAt) = (at, at)
        let verdicts = [alice, bob].map { SteadyVerdict(accountID: $0.id, read: registered, status: succeeded) }
        let before = await store.databaseCounters().writeTransactions
        #expect(try await store.saveSteadyVerdicts(verdicts) { _ in [alice.id, bob.id] } == [alice.id])
        #expect(await store.databaseCounters().writeTransactions == before + 1)
        #expect(try await store.status(ofAccount: alice.id).lastSuccessAt == at)
        #expect(try await store.status(ofAccount: bob.id) == changed)

        // An account no longer wanted as planned is left alone too.
        let later = Date(timeIntervalSince1970: 1_800_000_100)
        var laterSuccess = registered
        (laterSuccess.lastAttemptAt, laterSuccess.lastSuccessAt) = (later, later)
        let again = [SteadyVerdict(accountID: alice.id, read: registered, status: laterSuccess)]
        #expect(try await store.saveSteadyVerdicts(again) { _ in [] }.isEmpty)
        #expect(try await store.status(ofAccount: alice.id).lastSuccessAt == at)
    }

    @Test("a note that a run could not check an account leaves out one signed out meanwhile, and notes the others")
    func uncheckedAfterSignOut() async throws {
        let folder = try TemporaryDirectory()
        let store = try await StateStore.open(folder.location)
        let alice = try await store.signIn(instance: Self.instance, username: "alice", apiToken: Secret("gb_a"))
        let bob = try await store.signIn(instance: Self.instance, username: "bob", apiToken: Secret("gb_b"))
        try await store.setState(.removing, ofAccount: bob.id, now: Date())
        _ = try await store.deleteAccount(id: bob.id, removalStartedAt: try await store.account(id: bob.id)?.removalStartedAt)
        #expect(try await store.account(id: bob.id) == nil)
        let at = Date(timeIntervalSince1970: 1_800_000_000)
        try await store.noteUnchecked([(alice.id, .keyringLocked), (bob.id, .keyringLocked)], at: at)
        #expect(try await store.status(ofAccount: alice.id).unchecked?.reason == .keyringLocked)
        #expect(try await store.runFacts().statuses[bob.id] == nil)
    }

    @Test("a lease taken before a write is refused when the account's records changed since the run read them")
    func leaseBeforeWrite() async throws {
        let folder = try TemporaryDirectory()
        let store = try await StateStore.open(folder.location)
        let alice = try await store.signIn(instance: Self.instance, username: "alice", apiToken: Secret("gb_a"))
        let holder = LeaseHolder.new()
        let read = try await store.registrations(ofAccount: alice.id)
        try await store.recordRegistration(
            RegistrationRecord(
                accountID: alice.id, deviceID: 7, added: nil, token: TokenIdentity(fingerprint: nil, length: nil, shown: "c0ffee00"),
                generation: 1, madeAt: Date()
            ))
        #expect(try await store.takeLease(ofAccount: alice.id, holder: holder, ifRecords: read) == .recordsChanged)
        #expect(try await store.leases().isEmpty)
        let fresh = try await store.registrations(ofAccount: alice.id)
        #expect(try await store.takeLease(ofAccount: alice.id, holder: holder, ifRecords: fresh) == .taken)
        #expect(try await store.takeLease(ofAccount: alice.id, holder: holder, ifRecords: fresh) == .alreadyHeld)
        guard case .heldElsewhere = try await store.takeLease(ofAccount: alice.id, holder: LeaseHolder.new(), ifRecords: fresh) else {
            Issue.record("another holder is refused while this process lives")
            return
        }
    }

    @Test("a first verdict (a new condition and list tag) waits for the run's end and is written only over the verdict the pass read")
    func changedVerdicts() async throws {
        let folder = try TemporaryDirectory()
        let store = try await StateStore.open(folder.location)
        let alice = try await store.signIn(instance: Self.instance, username: "alice", apiToken: Secret("gb_a"))
        let bob = try await store.signIn(instance: Self.instance, username: "bob", apiToken: Secret("gb_b"))
        let carol = try await store.signIn(instance: Self.instance, username: "carol", apiToken: Secret("gb_c"))
        _ = try await store.device()
        let at = Date(timeIntervalSince1970: 1_800_000_000)
        let shadowed = AccountStatusRecord(
            condition: .shadowed, detail: "alice holds the token", lastAttemptAt: at, lastSuccessAt: at, listETag: "\"t1\"", etagBasis: "b1")
        // Bob never had a verdict; carol's was written by someone else after the run read it.
        let failing = AccountStatusRecord(condition: .error, lastError: "down", nextRetryAt: at, nextRetryReason: .backoff, failures: 1)
        try await store.saveStatus(failing, ofAccount: alice.id)
        try await store.saveStatus(AccountStatusRecord(condition: .registered), ofAccount: carol.id)
        let verdicts = [
            SteadyVerdict(accountID: alice.id, read: failing, status: shadowed),
            SteadyVerdict(accountID: bob.id, read: AccountStatusRecord(), status: shadowed),
            SteadyVerdict(accountID: carol.id, read: AccountStatusRecord(), status: shadowed),
        ]
        let before = await store.databaseCounters().writeTransactions
        #expect(try await store.saveSteadyVerdicts(verdicts) { _ in [alice.id, bob.id, carol.id] } == [alice.id, bob.id])
        #expect(await store.databaseCounters().writeTransactions == before + 1)
        #expect(try await store.status(ofAccount: alice.id) == shadowed)
        #expect(try await store.status(ofAccount: bob.id) == shadowed)
        #expect(try await store.status(ofAccount: carol.id) == AccountStatusRecord(condition: .registered))
    }

    @Test("the facts a run read stand for the database at its end only while nothing was written since, by anyone")
    func readFactsStandOnlyWhileUnchanged() async throws {
        let folder = try TemporaryDirectory()
        let store = try await StateStore.open(folder.location)
        let alice = try await store.signIn(instance: Self.instance, username: "alice", apiToken: Secret("gb_a"))
        _ = try await store.device()
        try await store.saveStatus(AccountStatusRecord(condition: .registered), ofAccount: alice.id)
        let verdict = SteadyVerdict(
            accountID: alice.id, read: AccountStatusRecord(condition: .registered),
            status: AccountStatusRecord(condition: .registered, lastAttemptAt: Date(), lastSuccessAt: Date()))
        let seen = Mutex<[AccountCondition?]>([])
        let record: @Sendable (InstanceFacts) -> Set<Int64> = { facts in
            seen.withLock { $0.append(facts.statuses[alice.id]?.condition) }
            return [alice.id]
        }

        // Unchanged: the plans made from the facts read stand (nothing asked), with fewer
        // statements than a read.
        let unchanged = try await store.runFacts()
        let reading = await store.databaseCounters().statements
        #expect(try await store.saveSteadyVerdicts([verdict], read: unchanged, stillWanted: record) == [alice.id])
        #expect(seen.withLock { $0 }.isEmpty)
        let reused = await store.databaseCounters().statements - reading
        try await store.saveSteadyVerdicts([verdict], stillWanted: record)
        let reread = await store.databaseCounters().statements - reading - reused
        #expect(reused < reread)

        // Another connection (another process) writes after the run read: its change is seen.
        let stale = try await store.runFacts()
        let other = try await StateStore.open(folder.location)
        try await other.saveStatus(AccountStatusRecord(condition: .error, lastError: "down"), ofAccount: alice.id)
        #expect(try await store.saveSteadyVerdicts([verdict], read: stale, stillWanted: record).isEmpty)

        // This connection writes after the run read: that change is seen too.
        try await store.saveStatus(AccountStatusRecord(condition: .registered), ofAccount: alice.id)
        let read = try await store.runFacts()
        try await store.saveStatus(AccountStatusRecord(condition: .paused), ofAccount: alice.id)
        #expect(try await store.saveSteadyVerdicts([verdict], read: read, stillWanted: record).isEmpty)

        #expect(seen.withLock { $0 } == [.registered, .error, .paused])
    }
}
