import Foundation
import Testing
@testable import GitbaySync

/// One row of the diff table.
struct PlanCase: Sendable, CustomTestStringConvertible {
    let name: String
    let desire: Desire
    let token: String?
    let generation: Int
    let oldPrefixes: [String]
    let records: [(id: Int, prefix: String, generation: Int)]
    let rows: [(id: Int, label: String, token: String)]
    let expected: [PlannedAction]

    var testDescription: String { name }

    init(
        _ name: String, desire: Desire = .hold, token: String? = current, generation: Int = 2,
        oldPrefixes: [String] = [], records: [(id: Int, prefix: String, generation: Int)] = [],
        rows: [(id: Int, label: String, token: String)] = [], expected: [PlannedAction]
    ) {
        self.name = name
        self.desire = desire
        self.token = token
        self.generation = generation
        self.oldPrefixes = oldPrefixes
        self.records = records
        self.rows = rows
        self.expected = expected
    }

    static let current = "c0ffee00aaaabbbbccccdddd"
    static let label = "laptop [gbs-abc123]"
    static let otherLabel = "phone"

    var input: PlanInput {
        PlanInput(
            desire: desire,
            currentToken: token.map { (Secret($0).prefix(), $0.utf8.count, generation) },
            oldPrefixes: oldPrefixes, serverLabel: Self.label, installMarker: "gbs-abc123",
            records: records.map {
                RegistrationRecord(accountID: 1, deviceID: $0.id, generation: $0.generation, tokenPrefix: $0.prefix,
                                   madeAt: Date(timeIntervalSince1970: 0), verifiedAt: nil)
            },
            serverRows: rows.map { ServerDevice(id: $0.id, label: $0.label, token: $0.token, added: "2026-01-01T00:00:00.000Z") }
        )
    }
}

private let mine = "c0ffee00…"
private let old = "0dd70ce0…"

@Suite("Reconcile plan")
struct ReconcilePlanTests {
    static let cases: [PlanCase] = [
        PlanCase("1. no record, empty list: add", expected: [.add]),
        PlanCase("1. no record, another device's rows only: add, touch nothing",
                 rows: [(3, PlanCase.otherLabel, "ffffffff…"), (4, "tablet", "(short token)")], expected: [.add]),
        PlanCase("2. record, row present, prefix matches: nothing",
                 records: [(7, "c0ffee00", 2)], rows: [(7, PlanCase.label, mine)], expected: []),
        PlanCase("3. record, row gone: forget and add again",
                 records: [(7, "c0ffee00", 2)], rows: [(3, PlanCase.otherLabel, "ffffffff…")],
                 expected: [.forget(id: 7, reason: .gone), .add]),
        PlanCase("4. record, id reused by another device: forget, never remove, add ours",
                 records: [(7, "c0ffee00", 2)], rows: [(7, PlanCase.otherLabel, "12345678…")],
                 expected: [.forget(id: 7, reason: .reused), .add]),
        PlanCase("4. reused id whose new label even carries our marker is still not removed",
                 records: [(7, "c0ffee00", 2)], rows: [(7, PlanCase.label, "12345678…")],
                 expected: [.forget(id: 7, reason: .reused), .add]),
        PlanCase("5. rotation: add the new token, then remove the old row",
                 oldPrefixes: ["0dd70ce0"], records: [(5, "0dd70ce0", 1)], rows: [(5, PlanCase.label, old)],
                 expected: [.add, .remove(id: 5, reason: .oldToken)]),
        PlanCase("5. rotation half done: new row recorded, old row still there",
                 oldPrefixes: ["0dd70ce0"], records: [(5, "0dd70ce0", 1), (8, "c0ffee00", 2)],
                 rows: [(5, PlanCase.label, old), (8, PlanCase.label, mine)],
                 expected: [.remove(id: 5, reason: .oldToken)]),
        PlanCase("6. crash after add: unrecorded row of ours is adopted, not duplicated",
                 rows: [(9, PlanCase.label, mine)], expected: [.adopt(id: 9)]),
        PlanCase("6. crash during rotation: adopt the new row, remove the unrecorded old one",
                 oldPrefixes: ["0dd70ce0"], rows: [(5, PlanCase.label, old), (9, PlanCase.label, mine)],
                 expected: [.adopt(id: 9), .remove(id: 5, reason: .oldToken)]),
        PlanCase("6. an old-token row without our marker or a record is not ours",
                 oldPrefixes: ["0dd70ce0"], rows: [(5, PlanCase.otherLabel, old)], expected: [.add]),
        PlanCase("our token's row with another label (label changed): add rewrites it",
                 records: [(7, "c0ffee00", 2)], rows: [(7, "old name [gbs-abc123]", mine)], expected: [.add]),
        PlanCase("7. shadowed: the holder takes the current row; records of it are dropped",
                 desire: .shadowed(by: "bob@h"), records: [(7, "c0ffee00", 2)], rows: [(7, PlanCase.label, mine)],
                 expected: [.forget(id: 7, reason: .handedOver)]),
        PlanCase("7. shadowed, steady: nothing",
                 desire: .shadowed(by: "bob@h"), rows: [(3, PlanCase.otherLabel, "ffffffff…")], expected: []),
        PlanCase("7. shadowed with an old-token row: remove it",
                 desire: .shadowed(by: "bob@h"), oldPrefixes: ["0dd70ce0"], records: [(5, "0dd70ce0", 1)],
                 rows: [(5, PlanCase.label, old)], expected: [.remove(id: 5, reason: .oldToken)]),
        PlanCase("8. paused: remove our rows, keep another device's",
                 desire: .release, oldPrefixes: ["0dd70ce0"], records: [(7, "c0ffee00", 2)],
                 rows: [(3, PlanCase.otherLabel, "ffffffff…"), (5, PlanCase.label, old), (7, PlanCase.label, mine)],
                 expected: [.remove(id: 7, reason: .released), .remove(id: 5, reason: .released)]),
        PlanCase("8. paused and already clean: nothing", desire: .release, expected: []),
        PlanCase("9. removing, row already gone: forget only",
                 desire: .release, records: [(7, "c0ffee00", 2)], expected: [.forget(id: 7, reason: .gone)]),
        PlanCase("no device token: remove old rows, add nothing",
                 desire: .release, token: nil, oldPrefixes: ["c0ffee00"], records: [(7, "c0ffee00", 2)],
                 rows: [(7, PlanCase.label, mine)], expected: [.remove(id: 7, reason: .released)]),
        PlanCase("a short token is matched only with our marker",
                 token: "abc", rows: [(4, "tablet", "(short token)"), (6, PlanCase.label, "(short token)")],
                 expected: [.adopt(id: 6)]),
        PlanCase("a short token echoed in full by a v1.32.0 server is ours",
                 token: "abc", records: [(6, "abc", 2)], rows: [(6, PlanCase.label, "abc")], expected: []),
        PlanCase("a recorded row of an older generation with the current prefix is re-recorded",
                 records: [(7, "c0ffee00", 1)], rows: [(7, PlanCase.label, mine)], expected: [.adopt(id: 7)]),
    ]

    @Test("the diff", arguments: cases)
    func diff(_ example: PlanCase) {
        #expect(ReconcilePlan.actions(for: example.input) == example.expected)
    }

    @Test("adds always come before removes", arguments: cases)
    func addFirst(_ example: PlanCase) {
        let actions = ReconcilePlan.actions(for: example.input)
        if let add = actions.firstIndex(of: .add) {
            let firstRemove = actions.firstIndex { if case .remove = $0 { true } else { false } }
            #expect(firstRemove.map { $0 > add } ?? true)
        }
    }

    @Test("another device's row is never removed, whatever the desire", arguments: [Desire.hold, .release, .shadowed(by: "x@y")])
    func neverRemovesForeign(_ desire: Desire) {
        let input = PlanCase(
            "foreign", desire: desire, oldPrefixes: ["0dd70ce0"],
            rows: [(3, "phone", "c0ffee00…"), (4, "tablet", old), (5, "x", "(short token)")], expected: []
        ).input
        let removed = ReconcilePlan.actions(for: input).compactMap { if case .remove(let id, _) = $0 { id } else { nil } }
        #expect(removed.isEmpty)
    }
}
