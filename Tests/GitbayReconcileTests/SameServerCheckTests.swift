import Foundation
import Testing

@testable import GitbayAPI
@testable import GitbayReconcile
@testable import GitbayState
@testable import GitbaySupport

/// What one account's own observations prove of the other names of its server: ann under
/// `http://127.0.0.1:8080` and ben under `http://localhost:8080`, each with a record of a row
/// of this device's token.
@Suite("Same server check")
struct SameServerCheckTests {
    static let here = try! InstanceURL(parsing: "http://127.0.0.1:8080")
    static let there = try! InstanceURL(parsing: "http://localhost:8080")
    static let ann = AccountRecord(id: 1, instance: here, username: "ann", name: "ann@127.0.0.1:8080", state: .active, signedInAt: .distantPast)
    static let ben = AccountRecord(id: 2, instance: there, username: "ben", name: "ben@localhost:8080", state: .active, signedInAt: .distantPast)
    static let accounts = [ann.id: ann, ben.id: ben]
    static let token = TokenIdentity(of: Secret("0123456789abcdef0123456789abcdef"))
    static let other = TokenIdentity(of: Secret("fedcba9876543210fedcba9876543210"))
    static let added = "2026-09-20T14:03:07.123Z"
    static let earlier = Date(timeIntervalSince1970: 1_790_000_000)
    static let later = earlier.addingTimeInterval(5)

    static func record(_ account: AccountRecord, id: Int = 7, added: String? = added, token: TokenIdentity = token, at: Date) -> RegistrationRecord {
        RegistrationRecord(accountID: account.id, deviceID: id, added: added, token: token, generation: 1, madeAt: at)
    }

    static func row(_ id: Int = 7, added: String = added) -> ServerDevice {
        ServerDevice(id: id, label: "laptop", token: token.shown, added: added)
    }

    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        /// Ann's record, and ben's.
        let ours: RegistrationRecord
        let theirs: RegistrationRecord
        /// Ann's own list.
        let rows: [ServerDevice]
        var names = ServerNames.none
        /// In a pass run again after an add: since when a record may prove a move.
        var since: Date? = earlier
        /// A proof of one server, two servers, or neither.
        let proven: Bool
        let distinct: Bool
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(
            name: "our row gone, recorded later by the other name with its id and added: one server",
            ours: record(ann, at: earlier), theirs: record(ben, at: later), rows: [], proven: true, distinct: false),
        Case(
            name: "our row gone, never seen listed by us (added unknown), recorded later there: one server",
            ours: record(ann, added: nil, at: earlier), theirs: record(ben, at: later), rows: [], proven: true, distinct: false),
        Case(
            name: "our row still listed with their added after their add: two servers",
            ours: record(ann, at: earlier), theirs: record(ben, at: later), rows: [row()], proven: false, distinct: true),
        Case(
            name: "our row gone, but their record is the older one (their add came first): nothing",
            ours: record(ann, at: later), theirs: record(ben, at: earlier), rows: [], proven: false, distinct: false),
        Case(
            name: "our row gone, their record of another token: nothing",
            ours: record(ann, at: earlier), theirs: record(ben, token: other, at: later), rows: [], proven: false, distinct: false),
        Case(
            name: "our row gone, their record of another id: nothing",
            ours: record(ann, at: earlier), theirs: record(ben, id: 8, at: later), rows: [], proven: false, distinct: false),
        Case(
            name: "our row gone, their record of another added time: nothing",
            ours: record(ann, at: earlier), theirs: record(ben, added: "2026-09-20T14:03:07.124Z", at: later), rows: [], proven: false,
            distinct: false),
        Case(
            name: "our row gone, but the two names were seen to be two servers: nothing (a reap, not a move)",
            ours: record(ann, at: earlier), theirs: record(ben, at: later), rows: [],
            names: ServerNames(proofs: [], distinct: [ServerNames.pair(here, there)]), proven: false, distinct: false),
        Case(
            name: "our row gone in a pass that no add asked for: nothing (it may have been reaped or taken by another user)",
            ours: record(ann, at: earlier), theirs: record(ben, at: later), rows: [], since: nil, proven: false, distinct: false),
        Case(
            name: "our row gone, their record made before the add that asked for this pass: nothing",
            ours: record(ann, at: earlier), theirs: record(ben, at: later), rows: [], since: later.addingTimeInterval(1), proven: false,
            distinct: false),
        Case(
            name: "our row still listed, in a pass no add asked for: two servers all the same",
            ours: record(ann, at: earlier), theirs: record(ben, at: later), rows: [row()], since: nil, proven: false, distinct: true),
        Case(
            name: "our row listed with another added (another row got the id): nothing",
            ours: record(ann, at: earlier), theirs: record(ben, at: later), rows: [row(added: "2026-09-21T00:00:00.000Z")], proven: false,
            distinct: false),
    ]

    @Test("a list proves one server, two servers, or nothing", arguments: cases)
    func verdicts(_ test: Case) {
        let verdicts = SameServerCheck.verdicts(
            of: Self.ann, records: [test.ours], rows: test.rows, holding: [Self.ben.id: [test.theirs]], accounts: Self.accounts,
            names: test.names, provingSince: test.since, now: Self.later)
        #expect(verdicts.proofs.map(\.other) == (test.proven ? [Self.there] : []))
        #expect(verdicts.proofs.map(\.added) == (test.proven ? [Self.added] : []))
        #expect(verdicts.distinct == (test.distinct ? [Self.there] : []))
    }

    @Test("our row gone and recorded later under two other URLs: no proof (a coincidence of ids cannot be told from the move)")
    func ambiguous() throws {
        let carol = AccountRecord(
            id: 3, instance: try InstanceURL(parsing: "http://127.0.0.1:9090"), username: "carol", name: "carol@127.0.0.1:9090", state: .active,
            signedInAt: .distantPast)
        let verdicts = SameServerCheck.verdicts(
            of: Self.ann, records: [Self.record(Self.ann, at: Self.earlier)], rows: [],
            holding: [Self.ben.id: [Self.record(Self.ben, at: Self.later)], carol.id: [Self.record(carol, at: Self.later)]],
            accounts: Self.accounts.merging([carol.id: carol]) { first, _ in first }, names: .none, provingSince: Self.earlier, now: Self.later)
        #expect(verdicts.proofs.isEmpty)
        #expect(verdicts.distinct.isEmpty)
    }

    @Test("an add names as suspects the accounts of other, unsettled names holding a record of its row")
    func suspects() {
        let holding = [Self.ann.id: [Self.record(Self.ann, at: Self.later)], Self.ben.id: [Self.record(Self.ben, at: Self.earlier)]]
        let suspects = { (names: ServerNames, added: String?) in
            SameServerCheck.suspects(
                after: Self.ann, added: 7, at: added, token: Self.token, holding: holding, accounts: Self.accounts, names: names)
        }
        #expect(suspects(.none, Self.added) == [Self.ben.id])
        #expect(suspects(.none, nil) == [Self.ben.id])
        #expect(suspects(.none, "2026-09-20T14:03:07.124Z") == [])
        let proven = ServerNames(proofs: [
            SameServerRecord(instance: Self.here, other: Self.there, deviceID: 7, added: Self.added, provenAt: Self.earlier)
        ])
        #expect(suspects(proven, Self.added) == [])
        #expect(suspects(ServerNames(proofs: [], distinct: [ServerNames.pair(Self.here, Self.there)]), Self.added) == [])
        #expect(
            SameServerCheck.suspects(
                after: Self.ann, added: 8, at: Self.added, token: Self.token, holding: holding, accounts: Self.accounts, names: .none) == [])
    }
}
