import Foundation
import Testing

@testable import GitbayAPI
@testable import GitbayReconcile
@testable import GitbayState
@testable import GitbaySupport

private let t1 = "2026-01-01T00:00:01.000Z"
private let mine = PlanCase.shown(PlanCase.current)

/// A change between the run that remembered a list tag and this one, and whether the tag may
/// still be sent.
struct TagCase: Sendable, CustomTestStringConvertible {
    let name: String
    let change: @Sendable (inout AccountDecision, inout [RegistrationRecord], inout AccountStatusRecord) -> Void
    let sendsTag: Bool
    /// The tag was remembered for a shadowed account (held by bob), not for the holder.
    var whileShadowed = false

    var testDescription: String { name }
}

@Suite("List tag validity")
struct ListTagTests {
    static let steady = PlanCase(
        "steady", records: [RecordedRow(id: 7, added: t1, token: PlanCase.current)], rows: [(7, PlanCase.label, mine, t1)], expected: []
    )

    static let cases: [TagCase] = [
        TagCase(name: "2. nothing changed: the tag is sent, so an unchanged list costs a 304", change: { _, _, _ in }, sendsTag: true),
        TagCase(
            name: "5. the device token changed: forgotten, or a rotation would be skipped",
            change: { decision, _, _ in
                decision.generation += 1
                decision.current = PlanCase.identity(PlanCase.sibling)
            }, sendsTag: false),
        TagCase(name: "the label changed: forgotten", change: { decision, _, _ in decision.serverLabel = "desk [gbs-abc123]" }, sendsTag: false),
        TagCase(
            name: "7. another account now holds the token: forgotten",
            change: { decision, _, _ in
                decision.desire = .shadowed(by: "bob@h")
            }, sendsTag: false),
        TagCase(name: "7. shadowed, nothing changed: the tag is sent", change: { _, _, _ in }, sendsTag: true, whileShadowed: true),
        TagCase(
            name: "7. the holder of a shadowed account changed: forgotten",
            change: { decision, _, _ in
                decision.desire = .shadowed(by: "carol@h")
            }, sendsTag: false, whileShadowed: true),
        TagCase(
            name: "7. a shadowed account now holds the token: forgotten",
            change: { decision, _, _ in
                decision.desire = .hold
            }, sendsTag: false, whileShadowed: true),
        TagCase(
            name: "8. paused: forgotten",
            change: { decision, _, _ in
                decision.desire = .release
                decision.accountState = .paused
            }, sendsTag: false),
        TagCase(
            name: "9. being removed: forgotten",
            change: { decision, _, _ in
                decision.desire = .release
                decision.accountState = .removing
            }, sendsTag: false),
        TagCase(name: "3. a record was dropped meanwhile (devices remove): forgotten", change: { _, records, _ in records = [] }, sendsTag: false),
        TagCase(name: "the last attempt failed: forgotten", change: { _, _, status in status.failures = 1 }, sendsTag: false),
        TagCase(name: "no tag remembered: none sent", change: { _, _, status in status.listETag = nil }, sendsTag: false),
    ]

    @Test("a remembered tag vouches only for the desired state it was seen with", arguments: cases)
    func validity(_ example: TagCase) {
        var decision = Self.steady.decision()
        var records = Self.steady.input.records
        if example.whileShadowed {
            // The holder's row is listed; this account records none.
            decision.desire = .shadowed(by: "bob@h")
            records = []
        }
        let plan = decision.plan(records: records, answer: .list(Self.steady.input.serverRows, etag: "\"t\""))
        guard case .remember(let tag, let basis) = plan.tag else {
            Issue.record("a list needing nothing is remembered, not \(plan.tag)")
            return
        }
        var status = AccountStatusRecord(condition: .registered, listETag: tag, etagBasis: basis)
        example.change(&decision, &records, &status)
        #expect(decision.tagToSend(remembered: status, records: records) == (example.sendsTag ? "\"t\"" : nil))
    }

    @Test("what is remembered after a list: as is, for the records afterwards, or only after a fresh list confirms the writes")
    func ruleAfterList() {
        let steady = Self.steady.decision().plan(records: Self.steady.input.records, answer: Self.steady.answer)
        #expect(steady.tag == .remember(tag: "\"tag-1\"", basis: Self.steady.decision().tagBasis(records: Self.steady.input.records)))

        let adopt = PlanCase("6. adopt", rows: [(9, PlanCase.label, mine, t1)], expected: [])
        #expect(adopt.decision().plan(records: [], answer: adopt.answer).tag == .rebase(tag: "\"tag-1\""))

        let add = PlanCase("1. add", expected: [])
        #expect(add.decision().plan(records: [], answer: add.answer).tag == .confirmAfterWrites)

        let release = PlanCase("8. release", desire: .release, records: Self.steady.records, rows: Self.steady.rows, expected: [])
        #expect(release.decision(.paused).plan(records: release.input.records, answer: release.answer).tag == .confirmAfterWrites)
    }

    @Test("writes no later run would list with a tag are not confirmed by a list: a removal's, or on a server that sends no tag")
    func noConfirmingList() {
        let release = PlanCase("9. remove", desire: .release, records: Self.steady.records, rows: Self.steady.rows, expected: [])
        #expect(release.decision(.removing).plan(records: release.input.records, answer: release.answer).tag == .forget)
        let add = PlanCase("1. add", expected: [])
        #expect(add.decision().plan(records: [], answer: .list(add.input.serverRows, etag: nil)).tag == .forget)
    }

    @Test("a list without a tag leaves nothing to remember")
    func noTag() {
        let plan = Self.steady.decision().plan(records: Self.steady.input.records, answer: .list(Self.steady.input.serverRows, etag: nil))
        #expect(plan.tag == .remember(tag: nil, basis: Self.steady.decision().tagBasis(records: Self.steady.input.records)))
    }

    /// Tags remembered by earlier versions stay good: the basis keeps its stored form.
    @Test("the basis a tag is remembered with keeps its stored form")
    func basisForm() {
        var decision = Self.steady.decision(generation: 3)
        let records = Self.steady.input.records
        let fingerprint = records[0].token.fingerprint.map { String($0.prefix(16)) } ?? "?"
        #expect(
            decision.tagBasis(records: records)
                == "3|\(PlanCase.label)|active|hold|\(records[0].deviceID)@\(records[0].added ?? "?")=\(fingerprint)")
        decision.desire = .shadowed(by: "bob@h")
        var two = records
        two.append(
            RegistrationRecord(
                accountID: 1, deviceID: 12, added: nil, token: TokenIdentity(fingerprint: nil, length: nil, shown: "abc"), generation: 1,
                madeAt: Date(timeIntervalSince1970: 0)))
        #expect(
            decision.tagBasis(records: two)
                == "3|\(PlanCase.label)|active|shadowed:bob@h|\(records[0].deviceID)@\(records[0].added ?? "?")=\(fingerprint),12@?=?")
        decision.desire = .release
        decision.accountState = .paused
        #expect(decision.tagBasis(records: []) == "3|\(PlanCase.label)|paused|release|")
    }
}
