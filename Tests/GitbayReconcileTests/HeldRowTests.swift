import Foundation
import Testing

@testable import GitbayAPI
@testable import GitbayReconcile
@testable import GitbayState
@testable import GitbaySupport

private let t1 = "2026-01-01T00:00:01.000Z"
private let t2 = "2026-01-02T00:00:02.000Z"
private let mine = PlanCase.shown(PlanCase.current)
private let old = PlanCase.shown(PlanCase.old)
private let shared = PlanCase.shown(PlanCase.sibling)

/// One row of the held-row table: records and a list, and the row this device holds.
struct HeldRowCase: Sendable, CustomTestStringConvertible {
    let plan: PlanCase
    let held: RowOwnership.HeldRow

    var testDescription: String { plan.name }

    init(_ plan: PlanCase, _ held: RowOwnership.HeldRow) {
        self.plan = plan
        self.held = held
    }
}

@Suite("The row this account holds")
struct HeldRowTests {
    static let cases: [HeldRowCase] = [
        HeldRowCase(PlanCase("1. nothing listed: none held, none to settle", expected: []), .undecided([])),
        HeldRowCase(
            PlanCase("1. another device's rows only, one showing our display: none", rows: [(3, "phone", mine, t1)], expected: []),
            .undecided([])),
        HeldRowCase(
            PlanCase(
                "2. the recorded row, present: held", records: [RecordedRow(id: 7, added: t1, token: PlanCase.current)],
                rows: [(7, PlanCase.label, mine, t1)], expected: []), .row(7)),
        HeldRowCase(
            PlanCase(
                "3. the recorded row gone: none", records: [RecordedRow(id: 7, added: t1, token: PlanCase.current)],
                rows: [(3, "phone", "ffffffff…", t1)], expected: []), .undecided([])),
        HeldRowCase(
            PlanCase(
                "4. the recorded id now names another device's row: not held",
                records: [RecordedRow(id: 7, added: t1, token: PlanCase.current)], rows: [(7, "phone", mine, t2)], expected: []),
            .undecided([])),
        HeldRowCase(
            PlanCase(
                "5. rotation not yet run: the old token's row is not held", oldTokens: [PlanCase.old],
                records: [RecordedRow(id: 5, added: t1, token: PlanCase.old)], rows: [(5, PlanCase.label, old, t1)], expected: []),
            .undecided([])),
        HeldRowCase(
            PlanCase(
                "5. rotation half done: the new token's row is held, not the old one", oldTokens: [PlanCase.old],
                records: [RecordedRow(id: 5, added: t1, token: PlanCase.old), RecordedRow(id: 8, added: t2, token: PlanCase.current)],
                rows: [(5, PlanCase.label, old, t1), (8, PlanCase.label, mine, t2)], expected: []), .row(8)),
        HeldRowCase(
            PlanCase(
                "5. old and new token share a display: the record tells which row holds the current one",
                token: PlanCase.sibling, oldTokens: [PlanCase.current],
                records: [RecordedRow(id: 1, added: t1, token: PlanCase.current), RecordedRow(id: 2, added: t2, token: PlanCase.sibling)],
                rows: [(1, PlanCase.label, mine, t1), (2, PlanCase.label, shared, t2)], expected: []), .row(2)),
        HeldRowCase(
            PlanCase(
                "6. a marked row without a record, showing the current token: held", rows: [(9, PlanCase.label, mine, t1)],
                expected: []), .row(9)),
        HeldRowCase(
            PlanCase(
                "6. marked rows the display cannot tell apart: undecided, in list order", token: PlanCase.sibling,
                oldTokens: [PlanCase.current], rows: [(4, PlanCase.label, mine, t1), (9, PlanCase.label, shared, t2)], expected: []),
            .undecided([4, 9])),
        HeldRowCase(
            PlanCase(
                "6. two marked rows both showing the current token: undecided",
                rows: [
                    (4, PlanCase.label, mine, t1),
                    (9, PlanCase.label, mine, t2),
                ], expected: []),
            .undecided([4, 9])),
        HeldRowCase(
            PlanCase(
                "6. a marked row and a recorded row both showing the current token: the record's row",
                records: [RecordedRow(id: 9, added: t2, token: PlanCase.current)],
                rows: [(4, PlanCase.label, mine, t1), (9, PlanCase.label, mine, t2)], expected: []), .row(9)),
        HeldRowCase(
            PlanCase(
                "7. a row recorded for this account holds the token until the run hands it over", desire: .shadowed(by: "a@h"),
                records: [RecordedRow(id: 7, added: t1, token: PlanCase.current)], rows: [(7, PlanCase.label, mine, t1)], expected: []),
            .row(7)),
    ]

    @Test("the held row: DESIGN's cases", arguments: cases)
    func heldRow(_ example: HeldRowCase) {
        let ownership = example.plan.input.ownership
        #expect(ownership.heldRow == example.held)
        let currentRows = example.plan.input.serverRows.filter { ownership.kind(of: $0) == .current }.map(\.id)
        #expect(currentRows == ownership.heldRowID.map { [$0] } ?? [], "the held row is exactly the row of kind current")
    }

    @Test("the held row from the records alone: the one recorded with the current token")
    func heldRecord() {
        let example = PlanCase(
            "records", oldTokens: [PlanCase.old],
            records: [
                RecordedRow(id: 5, added: t1, token: PlanCase.old), RecordedRow(id: 8, added: t2, token: PlanCase.current),
            ], expected: [])
        let records = example.input.records
        #expect(RowOwnership.heldRecord(in: records, current: PlanCase.identity(PlanCase.current))?.deviceID == 8)
        #expect(RowOwnership.heldRecord(in: records, current: PlanCase.identity(PlanCase.sibling)) == nil)
        #expect(RowOwnership.heldRecord(in: records, current: nil) == nil)
    }
}
