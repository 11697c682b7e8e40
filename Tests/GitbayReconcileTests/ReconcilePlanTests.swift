import Foundation
import TestSupport
import Testing

@testable import GitbayAPI
@testable import GitbayReconcile
@testable import GitbayState
@testable import GitbaySupport

/// A recorded row in a plan case: its id, `added` time, and the token it holds (nil: a record
/// kept by an earlier version, known only by `legacyPrefix`).
struct RecordedRow: Sendable {
    let id: Int
    let added: String?
    let token: String?
    var legacyPrefix = ""
}

/// One row of the diff table.
struct PlanCase: Sendable, CustomTestStringConvertible {
    let name: String
    let desire: Desire
    let token: String?
    let oldTokens: [String]
    let legacyOldPrefixes: [String]
    let records: [RecordedRow]
    let rows: [(id: Int, label: String, token: String, added: String)]
    let expected: [PlannedAction]

    var testDescription: String { name }

    init(
        _ name: String, desire: Desire = .hold, token: String? = current, oldTokens: [String] = [],
        legacyOldPrefixes: [String] = [], records: [RecordedRow] = [],
        rows: [(id: Int, label: String, token: String, added: String)] = [], expected: [PlannedAction]
    ) {
        self.name = name
        self.desire = desire
        self.token = token
        self.oldTokens = oldTokens
        self.legacyOldPrefixes = legacyOldPrefixes
        self.records = records
        self.rows = rows
        self.expected = expected
    }

    static let current = "c0ffee00aaaabbbbccccdddd"
    static let old = "0dd70ce0eeeeffff00001111"
    /// Shares its first 8 bytes with `current`: the display cannot tell them apart.
    static let sibling = "c0ffee00zzzzyyyyxxxxwwww"
    static let label = "laptop [gbs-abc123]"
    static let otherLabel = "phone"

    static func identity(_ token: String) -> TokenIdentity { TokenIdentity(of: Secret(token)) }
    /// How a v1.32.1 server lists `token`.
    static func shown(_ token: String) -> String { identity(token).shown }

    var input: PlanInput {
        PlanInput(
            desire: desire, current: token.map(Self.identity),
            oldTokens: oldTokens.map(Self.identity) + legacyOldPrefixes.map { TokenIdentity(fingerprint: nil, length: nil, shown: $0) },
            serverLabel: Self.label, installMarker: "gbs-abc123",
            records: records.map { record in
                RegistrationRecord(
                    accountID: 1, deviceID: record.id, added: record.added,
                    token: record.token.map(Self.identity) ?? TokenIdentity(fingerprint: nil, length: nil, shown: record.legacyPrefix),
                    generation: 1, madeAt: Date(timeIntervalSince1970: 0)
                )
            },
            serverRows: rows.map { ServerDevice(id: $0.id, label: $0.label, token: $0.token, added: $0.added) }
        )
    }
}

private let t1 = "2026-01-01T00:00:01.000Z"
private let t2 = "2026-01-02T00:00:02.000Z"
private let mine = PlanCase.shown(PlanCase.current)
private let old = PlanCase.shown(PlanCase.old)
private let shared = PlanCase.shown(PlanCase.sibling)

@Suite("Reconcile plan")
struct ReconcilePlanTests {
    static let designCases: [PlanCase] = [
        PlanCase("1. no record, empty list: add", expected: [.add]),
        PlanCase(
            "1. no record, another device's rows only: add, touch nothing",
            rows: [(3, PlanCase.otherLabel, "ffffffff…", t1), (4, "tablet", "(short token)", t1)], expected: [.add]),
        PlanCase(
            "2. record, row present with its added time and our token: nothing",
            records: [RecordedRow(id: 7, added: t1, token: PlanCase.current)], rows: [(7, PlanCase.label, mine, t1)], expected: []),
        PlanCase(
            "3. record, row gone: forget and add again",
            records: [RecordedRow(id: 7, added: t1, token: PlanCase.current)], rows: [(3, PlanCase.otherLabel, "ffffffff…", t1)],
            expected: [.forget(id: 7, reason: .gone), .add]),
        PlanCase(
            "4. record, id reused by another device: forget, never remove, add ours",
            records: [RecordedRow(id: 7, added: t1, token: PlanCase.current)], rows: [(7, PlanCase.otherLabel, "12345678…", t2)],
            expected: [.forget(id: 7, reason: .replaced), .add]),
        PlanCase(
            "4. reused id showing our very display, but added later: not the recorded row",
            records: [RecordedRow(id: 7, added: t1, token: PlanCase.current)], rows: [(7, PlanCase.otherLabel, mine, t2)],
            expected: [.forget(id: 7, reason: .replaced), .add]),
        PlanCase(
            "5. rotation: add the new token, then remove the old row",
            oldTokens: [PlanCase.old], records: [RecordedRow(id: 5, added: t1, token: PlanCase.old)], rows: [(5, PlanCase.label, old, t1)],
            expected: [.add, .remove(id: 5, reason: .oldToken)]),
        PlanCase(
            "5. rotation half done: new row recorded, old row still there",
            oldTokens: [PlanCase.old],
            records: [RecordedRow(id: 5, added: t1, token: PlanCase.old), RecordedRow(id: 8, added: t2, token: PlanCase.current)],
            rows: [(5, PlanCase.label, old, t1), (8, PlanCase.label, mine, t2)],
            expected: [.remove(id: 5, reason: .oldToken)]),
        PlanCase(
            "5. rotation to a token sharing the old one's 8 bytes: the record says the row holds the old one",
            token: PlanCase.sibling, oldTokens: [PlanCase.current],
            records: [RecordedRow(id: 1, added: t1, token: PlanCase.current)], rows: [(1, PlanCase.label, mine, t1)],
            expected: [.add, .remove(id: 1, reason: .oldToken)]),
        PlanCase(
            "5. set back to a token held before: its recorded row is current again",
            oldTokens: [PlanCase.current, PlanCase.old],
            records: [RecordedRow(id: 5, added: t1, token: PlanCase.current)], rows: [(5, PlanCase.label, mine, t1)], expected: []),
        PlanCase(
            "6. crash after add: an unrecorded row of ours is adopted, not duplicated",
            rows: [(9, PlanCase.label, mine, t1)], expected: [.adopt(id: 9)]),
        PlanCase(
            "6. crash after add, before the list: the record without added time is completed",
            records: [RecordedRow(id: 9, added: nil, token: PlanCase.current)], rows: [(9, PlanCase.label, mine, t1)],
            expected: [.adopt(id: 9)]),
        PlanCase(
            "6. crash during rotation: adopt the new row, remove the unrecorded old one",
            oldTokens: [PlanCase.old], rows: [(5, PlanCase.label, old, t1), (9, PlanCase.label, mine, t2)],
            expected: [.adopt(id: 9), .remove(id: 5, reason: .oldToken)]),
        PlanCase(
            "6. an old-token row without our marker or a record is not ours",
            oldTokens: [PlanCase.old], rows: [(5, PlanCase.otherLabel, old, t1)], expected: [.add]),
        PlanCase(
            "6. a marked row the display cannot place: settle it with a re-add",
            token: PlanCase.sibling, oldTokens: [PlanCase.current], rows: [(3, PlanCase.label, shared, t1)],
            expected: [.add(settling: [3])]),
        PlanCase(
            "6. a marked row the display cannot place, beside a recorded current row: it holds the old token",
            token: PlanCase.sibling, oldTokens: [PlanCase.current],
            records: [RecordedRow(id: 8, added: t2, token: PlanCase.sibling)],
            rows: [(3, PlanCase.label, shared, t1), (8, PlanCase.label, shared, t2)],
            expected: [.remove(id: 3, reason: .oldToken)]),
        PlanCase(
            "6. two records that both claim the current token: a re-add settles which",
            records: [RecordedRow(id: 5, added: t1, token: PlanCase.current), RecordedRow(id: 7, added: t2, token: PlanCase.current)],
            rows: [(5, PlanCase.label, mine, t1), (7, PlanCase.label, mine, t2)], expected: [.add(settling: [5, 7])]),
        PlanCase(
            "a row of our token with another label (label changed): add rewrites it",
            records: [RecordedRow(id: 7, added: t1, token: PlanCase.current)], rows: [(7, "old name [gbs-abc123]", mine, t1)],
            expected: [.add]),
        PlanCase(
            "7. shadowed: the holder takes the current row; records of it are dropped",
            desire: .shadowed(by: "bob@h"), records: [RecordedRow(id: 7, added: t1, token: PlanCase.current)],
            rows: [(7, PlanCase.label, mine, t1)], expected: [.forget(id: 7, reason: .handedOver)]),
        PlanCase(
            "7. shadowed, steady: nothing",
            desire: .shadowed(by: "bob@h"), rows: [(3, PlanCase.otherLabel, "ffffffff…", t1)], expected: []),
        PlanCase(
            "7. shadowed with an old-token row: remove it",
            desire: .shadowed(by: "bob@h"), oldTokens: [PlanCase.old], records: [RecordedRow(id: 5, added: t1, token: PlanCase.old)],
            rows: [(5, PlanCase.label, old, t1)], expected: [.remove(id: 5, reason: .oldToken)]),
        PlanCase(
            "7. shadowed with an unsettled row of ours: remove it, the holder adds the token",
            desire: .shadowed(by: "bob@h"), token: PlanCase.sibling, oldTokens: [PlanCase.current],
            rows: [(3, PlanCase.label, shared, t1)], expected: [.remove(id: 3, reason: .unsettled)]),
        PlanCase(
            "8. paused: remove our rows, keep another device's",
            desire: .release, oldTokens: [PlanCase.old], records: [RecordedRow(id: 7, added: t1, token: PlanCase.current)],
            rows: [(3, PlanCase.otherLabel, "ffffffff…", t1), (5, PlanCase.label, old, t1), (7, PlanCase.label, mine, t1)],
            expected: [.remove(id: 5, reason: .released), .remove(id: 7, reason: .released)]),
        PlanCase(
            "8. paused with an unsettled row of ours: remove it",
            desire: .release, token: PlanCase.sibling, oldTokens: [PlanCase.current],
            rows: [(3, PlanCase.label, shared, t1)], expected: [.remove(id: 3, reason: .released)]),
        PlanCase("8. paused and already clean: nothing", desire: .release, expected: []),
        PlanCase(
            "9. removing, row already gone: forget only",
            desire: .release, records: [RecordedRow(id: 7, added: t1, token: PlanCase.current)],
            expected: [.forget(id: 7, reason: .gone)]),
        PlanCase(
            "no device token: remove the rows of the tokens held before, add nothing",
            desire: .release, token: nil, oldTokens: [PlanCase.current],
            records: [RecordedRow(id: 7, added: t1, token: PlanCase.current)], rows: [(7, PlanCase.label, mine, t1)],
            expected: [.remove(id: 7, reason: .released)]),
        PlanCase(
            "a short token's row is ours only with our marker or a record",
            token: "abc", rows: [(4, "tablet", "(short token)", t1), (6, PlanCase.label, "(short token)", t1)],
            expected: [.adopt(id: 6)]),
        PlanCase(
            "a short token echoed in full by a v1.32.0 server fits its record",
            token: "abc", records: [RecordedRow(id: 6, added: t1, token: "abc")], rows: [(6, PlanCase.label, "abc", t1)], expected: []),
        PlanCase(
            "a record kept by an earlier version: the list completes it, the display places the token",
            records: [RecordedRow(id: 7, added: nil, token: nil, legacyPrefix: "c0ffee00")], rows: [(7, PlanCase.label, mine, t1)],
            expected: [.adopt(id: 7)]),
        PlanCase(
            "a record kept by an earlier version whose id now holds an unmarked row: not ours",
            records: [RecordedRow(id: 7, added: nil, token: nil, legacyPrefix: "c0ffee00")], rows: [(7, PlanCase.otherLabel, mine, t1)],
            expected: [.forget(id: 7, reason: .replaced), .add]),
        PlanCase(
            "an old token known only by its prefix makes a sharing row unsettled",
            legacyOldPrefixes: ["c0ffee00"], rows: [(3, PlanCase.label, mine, t1)], expected: [.add(settling: [3])]),
    ]

    /// The five ways the display once misled the plan, as the issue that fixed them tells them.
    static let reportedCases: [PlanCase] = [
        PlanCase(
            "rotation between tokens sharing 8 bytes adds the new token and removes the old row",
            token: "https://push.example.org/up/BBBB2", oldTokens: ["https://push.example.org/up/AAAA1"],
            records: [RecordedRow(id: 1, added: t1, token: "https://push.example.org/up/AAAA1")],
            rows: [(1, PlanCase.label, "https://…", t1)],
            expected: [.add, .remove(id: 1, reason: .oldToken)]),
        PlanCase(
            "a reused id holding another device's short token is not ours, not even when pausing",
            desire: .release, records: [RecordedRow(id: 1, added: t1, token: PlanCase.current)],
            rows: [(1, "tablet", "(short token)", t2)], expected: [.forget(id: 1, reason: .replaced)]),
        PlanCase(
            "v1.32.0 lists an 8-byte token in full: the unrecorded row of ours is adopted, not re-added",
            token: "DEVTOKEN", rows: [(1, PlanCase.label, "DEVTOKEN", t1)], expected: [.adopt(id: 1)]),
        PlanCase(
            "v1.32.0 lists an 8-byte token in full: its recorded row is removed at sign-out",
            desire: .release, token: "DEVTOKEN", records: [RecordedRow(id: 1, added: t1, token: "DEVTOKEN")],
            rows: [(1, PlanCase.label, "DEVTOKEN", t1)], expected: [.remove(id: 1, reason: .released)]),
        PlanCase(
            "a token cut inside a character shows one U+FFFD per byte, and its row is ours",
            token: "abcdef€xyz0123", rows: [(2, PlanCase.label, "abcdef\u{FFFD}\u{FFFD}…", t1)], expected: [.adopt(id: 2)]),
    ]

    @Test("the diff: DESIGN's cases", arguments: designCases)
    func diff(_ example: PlanCase) {
        #expect(ReconcilePlan.actions(for: example.input) == example.expected)
    }

    @Test("the diff: the reported cases", arguments: reportedCases)
    func reported(_ example: PlanCase) {
        #expect(ReconcilePlan.actions(for: example.input) == example.expected)
    }

    @Test("adds always come before removes", arguments: designCases + reportedCases)
    func addFirst(_ example: PlanCase) {
        let actions = ReconcilePlan.actions(for: example.input)
        if let add = actions.firstIndex(where: { if case .add = $0 { true } else { false } }) {
            let firstRemove = actions.firstIndex { if case .remove = $0 { true } else { false } }
            #expect(firstRemove.map { $0 > add } ?? true)
        }
    }

    @Test("a row neither recorded nor marked is never removed, whatever it shows", arguments: [Desire.hold, .release, .shadowed(by: "x@y")])
    func neverRemovesForeign(_ desire: Desire) {
        let input = PlanCase(
            "foreign", desire: desire, token: PlanCase.sibling, oldTokens: [PlanCase.current, PlanCase.old, "abc"],
            rows: [
                (3, "phone", mine, t1), (4, "tablet", old, t1), (5, "x", "(short token)", t1), (6, "y", "abc", t1),
                (7, "[gbs-other] z", mine, t1),
            ],
            expected: []
        ).input
        let touched = ReconcilePlan.actions(for: input).flatMap { action -> [Int] in
            switch action {
            case .remove(let id, _): [id]
            case .add(let settling): settling
            case .adopt, .forget: []
            }
        }
        #expect(touched.isEmpty)
    }
}
