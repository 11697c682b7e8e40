import Testing

@testable import GitbayAPI
@testable import GitbayKeyring
@testable import GitbayReconcile
@testable import GitbayState
@testable import GitbaySupport

/// The removal machine: a table over every (state, answer) pair it accepts from its driver,
/// each row a transcript from the pass's outcome to the removal's end (the rows are in
/// RemovalMachineTableTests+Rows.swift, +Reads.swift and +Revocations.swift), and a check that
/// the table feeds each pair.
@Suite("Removal machine")
struct RemovalMachineTableTests {
    typealias Effect = RemovalMachine.Effect
    typealias Answer = RemovalMachine.Answer

    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        /// What the account's pass did, as the removal is handed it.
        let outcome: AccountOutcome
        let force: Bool
        let inRun: Bool
        /// Whether a stop was requested, with every answer.
        let stopping: Bool
        /// The answers after `start()` (which asks for the check), each followed by the effect
        /// it must lead to; the last effect is the end.
        let exchanges: [(Answer, Effect)]
        /// The revocation's writes, added to the pass's.
        let writes: Int

        init(
            name: String, outcome: AccountOutcome, force: Bool = false, inRun: Bool = false, stopping: Bool = false,
            exchanges: [(Answer, Effect)], writes: Int = 0
        ) {
            (self.name, self.outcome, self.force, self.inRun, self.stopping) = (name, outcome, force, inRun, stopping)
            (self.exchanges, self.writes) = (exchanges, writes)
        }

        var testDescription: String { name }
    }

    static let account = "alice@gitbay.example"
    static let instance = try! InstanceURL(parsing: "https://gitbay.example")
    static let current = "gitbay-sync-laptop-gbs-abcdef"
    static let stale = "gitbay-sync-laptop-gbs-abcdef-r20260101000000"
    static let older = "gitbay-sync-laptop-gbs-abcdef-r20250101000000"
    static let hookFailed = "pre-remove hook exited with status 1"
    static let hookStopped = "pre-remove hook stopped by a stop request"
    static let unreached = "the server could not be reached"
    /// The pass's list that timed out, and a revocation's.
    static let passDown = GitbayError(
        kind: .transport(.timedOut(.request, limit: .seconds(30))), account: account, command: ["notifications", "device", "list"])
    static let down = GitbayError(kind: .transport(.timedOut(.request, limit: .seconds(30))), account: account, command: ["token", "revoke"])
    static let refusal = GitbayError(kind: .authFailed, account: account, command: ["notifications", "device", "list"])
    static let revokeRefused = GitbayError(kind: .authFailed, account: account, command: ["token", "revoke"])
    /// A revocation's request cancelled by a stop.
    static let cancelled = GitbayError(kind: .transport(.cancelled), account: account, command: ["token", "revoke"])
    static let keyring = AccountFailure.local(.keyring(.locked))

    /// An outcome of the account's pass; `writes` its own (a deregistration's `device remove`).
    static func pass(
        _ action: AccountOutcome.Action, _ condition: AccountCondition, failure: AccountFailure? = nil,
        skip: RunSchedule.SkipReason? = nil, writes: Int = 0
    ) -> AccountOutcome {
        AccountOutcome(
            accountID: 7, account: account, instance: instance, action: action, condition: condition, writes: writes, failure: failure,
            skipReason: skip)
    }

    /// A pass that deregistered the device with one write, and the same pass held for `failure`.
    static func removed(writes: Int = 1) -> AccountOutcome { pass(.removed, .removing, writes: writes) }
    static func heldRemoved(_ failure: AccountFailure, writes: Int = 1) -> AccountOutcome {
        pass(.failed, .removing, failure: failure, writes: writes)
    }

    static let unreachable = pass(.failed, .error, failure: .server(passDown))
    static let refusedNow = pass(.failed, .authFailed, failure: .server(refusal))
    static let backingOff = pass(.skipped, .error, skip: .backingOff)
    static let keyringLocked = pass(.skipped, .removing, skip: .keyringUnavailable(.locked))

    static func checked(stepPassed: Bool, stillRemoving: Bool = true) -> Answer {
        .checked(stillRemoving: stillRemoving, stepPassed: stepPassed)
    }
    static func read(_ current: String?, stale: [String] = [], stillRemoving: Bool = true) -> Answer {
        .tokenRead(.found(current: current, staleNames: stale), stillRemoving: stillRemoving)
    }
    static func unread(_ name: String?, stale: [String] = [], stillRemoving: Bool = true) -> Answer {
        .tokenRead(.unavailable(.locked, name: name, staleNames: stale), stillRemoving: stillRemoving)
    }
    static let stepFailed = Answer.stepRan(RemovalMachine.StepFailure(detail: hookFailed, interrupted: false))
    static let stepStopped = Answer.stepRan(RemovalMachine.StepFailure(detail: hookStopped, interrupted: true))

    static func deleted(_ outcome: AccountOutcome, hold: RemovalHold? = nil, token: TokenRevocation) -> Effect {
        .finish(.delete(outcome, hold: hold, token: token))
    }
    static func kept(_ outcome: AccountOutcome, for reason: RemovalHold, saving: RemovalMachine.HeldStatus? = nil) -> Effect {
        .finish(.kept(outcome, reason: reason, saving: saving))
    }
    /// The status saved for a hold after the step: `detail`, and the failure's own words.
    static func saving(_ detail: String, _ failure: AccountFailure) -> RemovalMachine.HeldStatus {
        RemovalMachine.HeldStatus(detail: detail, error: failure.description)
    }

    @Test("every (state, answer) pair", arguments: table)
    func transcript(_ row: Case) {
        var machine = RemovalMachine(after: row.outcome, force: row.force, inRun: row.inRun)
        #expect(machine.start() == .check, "at the start")
        for (answer, expected) in row.exchanges {
            #expect(!machine.isFinished, "answered after the end: \(answer)")
            guard !machine.isFinished else { return }
            let effect = machine.take(answer, stopping: row.stopping)
            #expect(effect == expected, "after \(answer)")
            // A machine gone astray may trap on the next answer: its first difference is enough.
            guard effect == expected else { return }
        }
        #expect(machine.isFinished)
        #expect(machine.outcome.writes == row.outcome.writes + row.writes)
    }

    @Test("the table feeds every (state, answer) pair the machine accepts from its driver")
    func everyPairTabled() {
        let fed = Self.fedPairs(Self.table)
        let accepted = Set(Self.accepted.flatMap { state, answers in answers.map { "\(state) × \($0)" } })
        #expect(accepted.subtracting(fed).isEmpty, "never fed: \(accepted.subtracting(fed).sorted())")
        #expect(fed.subtracting(accepted).isEmpty, "fed, yet not accepted: \(fed.subtracting(accepted).sorted())")
    }

    /// The pairs the driver can hand in, by state: the check's four answers, the step's three,
    /// each kind of token read with the account still in its removal or not (read with no hold,
    /// or held by a failure `--force` overrides), and each answer to a revocation's requests (a
    /// failure a stop cut short apart).
    static let accepted: [String: [String]] = {
        let reads = ["found", "found(no names)", "none", "unavailable"].flatMap { ["\($0), still removing", "\($0), signed in again"] }
        let revokes = ["revoke(revoked)", "revoke(unknownName)", "revoke(refused)", "revoke(failed)", "revoke(failed, a stop)"]
        return [
            "initial": ["start"],
            "checking": [true, false].flatMap { still in [true, false].map { "checked(stillRemoving: \(still), stepPassed: \($0))" } },
            "stepping": ["stepRan(passed)", "stepRan(failed)", "stepRan(interrupted)"],
            "reading": reads, "reading(held)": reads,
            "revoking(stale)": revokes, "revoking(current)": revokes,
            "checkingToken": ["check(accepted)", "check(refused)", "check(failed)", "check(failed, a stop)"],
        ]
    }()

    /// The (state, answer) pairs `rows` feed, each state told by the effect that led to it (a
    /// read is held when the step failed, or when the pass did not deregister the device).
    static func fedPairs(_ rows: [Case]) -> Set<String> {
        var fed: Set<String> = []
        for row in rows {
            fed.insert("initial × start")
            var (effect, held, current) = (Effect.check, false, String?.none)
            for (answer, next) in row.exchanges {
                switch answer {
                case .checked(_, let stepPassed): held = !deregistered(row.outcome, stepPassed: stepPassed)
                case .stepRan(let failure?): held = !failure.interrupted
                case .tokenRead(.found(let name, _), _): current = name
                default: break
                }
                let state =
                    switch effect {
                    case .check: "checking"
                    case .runStep: "stepping"
                    case .readToken: held ? "reading(held)" : "reading"
                    case .revoke(let name): name == current ? "revoking(current)" : "revoking(stale)"
                    case .checkToken: "checkingToken"
                    case .finish: "finished"
                    }
                fed.insert("\(state) × \(kind(answer))")
                effect = next
            }
        }
        return fed
    }

    /// Whether the pass deregistered the device, as a removal reads it: it neither failed nor
    /// was skipped, or its token was refused only once the step had passed.
    static func deregistered(_ outcome: AccountOutcome, stepPassed: Bool) -> Bool {
        (!outcome.isFailure && outcome.action != .skipped) || (outcome.condition == .authFailed && stepPassed)
    }

    /// The answer's kind, with what tells its variants apart.
    static func kind(_ answer: Answer) -> String {
        func failed(_ error: GitbayError) -> String { AccountFailure.server(error).isStop ? "failed, a stop" : "failed" }
        switch answer {
        case .checked(let still, let passed): return "checked(stillRemoving: \(still), stepPassed: \(passed))"
        case .stepRan(nil): return "stepRan(passed)"
        case .stepRan(let failure?): return failure.interrupted ? "stepRan(interrupted)" : "stepRan(failed)"
        case .tokenRead(let read, let still):
            let found =
                switch read {
                case .found(nil, let stale) where stale.isEmpty: "found(no names)"
                case .found: "found"
                case .none: "none"
                case .unavailable: "unavailable"
                }
            return "\(found), \(still ? "still removing" : "signed in again")"
        case .revoke(.revoked): return "revoke(revoked)"
        case .revoke(.unknownName): return "revoke(unknownName)"
        case .revoke(.refused): return "revoke(refused)"
        case .revoke(.failed(let error)): return "revoke(\(failed(error)))"
        case .check(.accepted): return "check(accepted)"
        case .check(.refused): return "check(refused)"
        case .check(.failed(let error)): return "check(\(failed(error)))"
        }
    }
}
