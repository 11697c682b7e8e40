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

/// One row of the verdict table: a plan case, the account's state, and the word and condition
/// `run` reports once the plan went through.
struct VerdictCase: Sendable, CustomTestStringConvertible {
    let plan: PlanCase
    let state: AccountState
    let action: AccountOutcome.Action
    let condition: AccountCondition

    var testDescription: String { plan.name }

    init(_ plan: PlanCase, state: AccountState = .active, _ action: AccountOutcome.Action, _ condition: AccountCondition) {
        self.plan = plan
        self.state = state
        self.action = action
        self.condition = condition
    }
}

extension PlanCase {
    /// The decision this case's desire, token and label make for an account in `state`.
    func decision(_ state: AccountState = .active, generation: Int = 1) -> AccountDecision {
        let input = input
        return AccountDecision(
            desire: desire, accountState: state, generation: generation, serverLabel: input.serverLabel,
            current: input.current, oldTokens: input.oldTokens, installMarker: input.installMarker
        )
    }

    var answer: DeviceList { .list(input.serverRows, etag: "\"tag-1\"") }
}

@Suite("Account decision")
struct AccountDecisionTests {
    static let verdicts: [VerdictCase] = [
        VerdictCase(PlanCase("1. no record: added, registered", expected: []), .added, .registered),
        VerdictCase(
            PlanCase(
                "2. recorded row present: unchanged, registered", records: [RecordedRow(id: 7, added: t1, token: PlanCase.current)],
                rows: [(7, PlanCase.label, mine, t1)], expected: []), .unchanged, .registered),
        VerdictCase(
            PlanCase("3. recorded row gone: re-added", records: [RecordedRow(id: 7, added: t1, token: PlanCase.current)], expected: []),
            .reAdded, .registered),
        VerdictCase(
            PlanCase(
                "4. recorded id reused by another device: re-added", records: [RecordedRow(id: 7, added: t1, token: PlanCase.current)],
                rows: [(7, PlanCase.otherLabel, "12345678…", t2)], expected: []), .reAdded, .registered),
        VerdictCase(
            PlanCase(
                "5. token rotated: rotated", oldTokens: [PlanCase.old], records: [RecordedRow(id: 5, added: t1, token: PlanCase.old)],
                rows: [(5, PlanCase.label, old, t1)], expected: []), .rotated, .registered),
        VerdictCase(PlanCase("6. marked row without a record: adopted", rows: [(9, PlanCase.label, mine, t1)], expected: []), .adopted, .registered),
        VerdictCase(PlanCase("7. shadowed, nothing of ours: shadowed", desire: .shadowed(by: "alice@h"), expected: []), .shadowed, .shadowed),
        VerdictCase(
            PlanCase(
                "7. shadowed after a handover: the record goes, still shadowed", desire: .shadowed(by: "alice@h"),
                records: [RecordedRow(id: 7, added: t1, token: PlanCase.current)], rows: [(7, PlanCase.label, mine, t1)],
                expected: []), .shadowed, .shadowed),
        VerdictCase(
            PlanCase(
                "8. paused with a row: removed, paused", desire: .release, records: [RecordedRow(id: 7, added: t1, token: PlanCase.current)],
                rows: [(7, PlanCase.label, mine, t1)], expected: []), state: .paused, .removed, .paused),
        VerdictCase(PlanCase("8. paused, nothing left: unchanged, paused", desire: .release, expected: []), state: .paused, .unchanged, .paused),
        VerdictCase(
            PlanCase(
                "9. being removed: removed, removing", desire: .release, records: [RecordedRow(id: 7, added: t1, token: PlanCase.current)],
                rows: [(7, PlanCase.label, mine, t1)], expected: []), state: .removing, .removed, .removing),
        VerdictCase(
            PlanCase("no device token: nothing held, no-device-token", desire: .release, token: nil, expected: []),
            .unchanged, .noDeviceToken),
    ]

    /// The held row after the plan, as the executor finds it when every step goes through:
    /// an add answers with a new row (id 100).
    static func heldAfter(_ plan: AccountDecision.Plan) -> Int? {
        var held = plan.heldID
        for action in plan.actions {
            switch action {
            case .add: held = 100
            case .adopt(let id): held = id
            case .forget(let id, _), .remove(let id, _): if held == id { held = nil }
            }
        }
        return held
    }

    @Test("the verdict: DESIGN's cases", arguments: verdicts)
    func verdict(_ example: VerdictCase) {
        let decision = example.plan.decision(example.state)
        let plan = decision.plan(records: example.plan.input.records, answer: example.plan.answer)
        let verdict = decision.verdict(actions: plan.actions, hadRecords: !example.plan.records.isEmpty, heldID: Self.heldAfter(plan))
        #expect(verdict.action == example.action)
        #expect(verdict.condition == example.condition)
        if case .shadowed(let holder) = example.plan.desire {
            #expect(verdict.shadowedBy == holder)
            #expect(verdict.detail == "the device token is held by \(holder) on this instance")
        } else {
            #expect(verdict.shadowedBy == nil && verdict.detail == nil)
        }
    }

    @Test("the verdict: a hold that ends without a row of the current token is an error")
    func holdWithoutRow() {
        let decision = PlanCase("hold", expected: []).decision()
        #expect(decision.verdict(actions: [], hadRecords: false, heldID: nil).condition == .error)
        #expect(decision.verdict(actions: [], hadRecords: false, heldID: 3).condition == .registered)
    }

    @Test("not modified: no actions, the remembered tag stands, the recorded row of the current token is held")
    func notModified() {
        let example = PlanCase(
            "steady", records: [RecordedRow(id: 5, added: t1, token: PlanCase.old), RecordedRow(id: 7, added: t1, token: PlanCase.current)],
            expected: [])
        let plan = example.decision().plan(records: example.input.records, answer: .notModified)
        #expect(plan == AccountDecision.Plan(actions: [], heldID: 7, tag: .keepRemembered))
        let shadowed = PlanCase("shadowed", desire: .shadowed(by: "a@h"), records: example.records, expected: [])
        #expect(shadowed.decision().plan(records: shadowed.input.records, answer: .notModified).heldID == nil)
    }
}
