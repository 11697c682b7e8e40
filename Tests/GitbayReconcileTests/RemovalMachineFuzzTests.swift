import TestSupport
import Testing

@testable import GitbayAPI
@testable import GitbayReconcile
@testable import GitbayState

/// The removal machine fed random legal answers, from random passes, with and without
/// `--force`, in a run or not, at a stop or not, with invariants after each step.
/// `GITBAY_SYNC_PASS_SEED` replays a seed.
@Suite("Removal machine, random answers")
struct RemovalMachineFuzzTests {
    typealias Effect = RemovalMachine.Effect
    typealias Fixed = RemovalMachineTableTests

    /// More steps than any removal takes: the check, the step, the read, the stale names (two
    /// at most here), the current one, its check and the end.
    static let stepLimit = 12

    /// What a removal was handed and answered so far.
    struct Seen {
        let pass: AccountOutcome
        let force: Bool
        let inRun: Bool
        let stopping: Bool
        /// The pass deregistered the device, as the check read it.
        var deregistered = false
        /// The step passed in this removal already, or ran in it.
        var stepSettled = false
        var signedInAgain = false
        var interrupted = false
        /// A token was read with names to revoke, the account still in its removal.
        var namesRead = false
        /// The revocations the server answered (revoked, or no such name).
        var revocations = 0
        /// The answer handed in last.
        var last: RemovalMachine.Answer?
    }

    @Test(
        "random legal answers: it ends; nothing is deleted after a sign-in; no hold is overridden without --force or at a stop; a held removal is a failure; the step runs once, before any deletion; nothing is sent after an interrupted step, nor for a pass that did not deregister; a stop-cut revocation and, without --force, an unread token are held; only a run leaves a removal untouched"
    )
    func randomAnswers() {
        let seed = SplitMix64.seed(from: "GITBAY_SYNC_PASS_SEED")
        var random = SplitMix64(seed: seed)
        for _ in 0..<2000 {
            let outcome = Self.outcome(&random)
            var seen = Seen(
                pass: outcome, force: Bool.random(using: &random), inRun: Bool.random(using: &random), stopping: Bool.random(using: &random))
            var machine = RemovalMachine(after: outcome, force: seen.force, inRun: seen.inRun)
            var effect = machine.start()
            var transcript = ["\(outcome.action)/\(outcome.condition) force: \(seen.force) inRun: \(seen.inRun) stopping: \(seen.stopping)"]
            var steps = 0
            while steps < Self.stepLimit {
                steps += 1
                let context = "seed \(seed): \(transcript.joined(separator: " → "))"
                check(effect, machine: machine, seen: seen, context: context)
                guard case .finish = effect else {
                    let answer = Self.answer(effect, &random)
                    Self.note(answer, in: &seen)
                    transcript.append(Fixed.kind(answer))
                    effect = machine.take(answer, stopping: seen.stopping)
                    continue
                }
                #expect(machine.outcome.writes == outcome.writes + seen.revocations, "\(context): the revocation's writes not counted")
                break
            }
            #expect(machine.isFinished, "seed \(seed): no end after \(steps) steps: \(transcript.joined(separator: " → "))")
        }
    }

    /// The invariants that hold whatever was answered before `effect`.
    private func check(_ effect: Effect, machine: RemovalMachine, seen: Seen, context: String) {
        guard case .finish(let end) = effect else {
            #expect(!machine.isFinished, "\(context): finished, yet asks for \(effect)")
            #expect(!seen.signedInAgain && !seen.interrupted, "\(context): \(effect) after a sign-in or an interrupted step")
            if case .revoke = effect {
                #expect(seen.namesRead, "\(context): a revocation with no name read")
                #expect(seen.deregistered, "\(context): a revocation sent although the pass did not deregister")
            }
            if case .checkToken = effect { #expect(seen.namesRead, "\(context): a check with no name read") }
            if case .runStep = effect { #expect(seen.deregistered && !seen.stepSettled, "\(context): a step run again, or for no deregistration") }
            return
        }
        #expect(machine.isFinished, "\(context): not finished at its end")
        let kept = if case .kept = end { true } else { false }
        #expect(kept || !Self.stoppedRevocation(seen.last), "\(context): a revocation a stop cut short, yet not held")
        #expect(kept || !Self.unread(seen.last) || seen.force, "\(context): a token the keyring did not give, yet not held without --force")
        switch end {
        case .delete(_, let hold, _):
            #expect(!seen.signedInAgain, "\(context): deleted although signed in again")
            #expect(seen.stepSettled || !seen.deregistered, "\(context): deleted before its step passed or ran")
            #expect(hold == nil || seen.force, "\(context): held for \(String(describing: hold)), yet deleted without --force")
            #expect(hold == nil || !seen.stopping, "\(context): held for \(String(describing: hold)), yet deleted at a stop")
        case .kept(let outcome, _, _), .interrupted(let outcome, _):
            #expect(outcome.action == .failed, "\(context): held, yet its action is \(outcome.action)")
        case .untouched:
            #expect(seen.inRun, "\(context): remove-account left its removal untouched")
        case .signedInAgain:
            break
        }
    }

    /// Whether `answer` is a revocation's request that a stop cut short.
    private static func stoppedRevocation(_ answer: RemovalMachine.Answer?) -> Bool {
        switch answer {
        case .revoke(.failed(let error)), .check(.failed(let error)): AccountFailure.server(error).isStop
        default: false
        }
    }

    /// Whether `answer` is a token read the keyring did not give.
    private static func unread(_ answer: RemovalMachine.Answer?) -> Bool {
        if case .tokenRead(.unavailable, _) = answer { true } else { false }
    }

    /// Notes what `answer` tells.
    private static func note(_ answer: RemovalMachine.Answer, in seen: inout Seen) {
        seen.last = answer
        switch answer {
        case .checked(let stillRemoving, let stepPassed):
            seen.signedInAgain = seen.signedInAgain || !stillRemoving
            (seen.deregistered, seen.stepSettled) = (Fixed.deregistered(seen.pass, stepPassed: stepPassed), stepPassed)
        case .stepRan(let failure): (seen.interrupted, seen.stepSettled) = (failure?.interrupted ?? false, true)
        case .tokenRead(let read, let stillRemoving):
            seen.signedInAgain = seen.signedInAgain || !stillRemoving
            if case .found(let current, let stale) = read { seen.namesRead = stillRemoving && (current != nil || !stale.isEmpty) }
        case .revoke(.revoked), .revoke(.unknownName): seen.revocations += 1
        case .revoke, .check: break
        }
    }

    /// A pass's outcome: any action and condition a removal may be handed, with or without a
    /// failure and a reason it was skipped.
    static func outcome(_ random: inout SplitMix64) -> AccountOutcome {
        let failures: [AccountFailure?] = [nil, .server(Fixed.passDown), .server(Fixed.refusal), .recorded("connection refused")]
        let skips: [RunSchedule.SkipReason?] = [nil, .backingOff, .keyringUnavailable(.locked), .tokenRefused, .removalTokenRefused]
        return Fixed.pass(
            [.added, .unchanged, .failed, .skipped].randomElement(using: &random)!,
            [.registered, .authFailed, .removing, .pending].randomElement(using: &random)!, failure: failures.randomElement(using: &random)!,
            skip: skips.randomElement(using: &random)!, writes: Int.random(in: 0...2, using: &random))
    }

    /// A random legal answer to `effect`.
    static func answer(_ effect: Effect, _ random: inout SplitMix64) -> RemovalMachine.Answer {
        // Signed in again now and then, not as often as not.
        let stillRemoving = Int.random(in: 0..<4, using: &random) > 0
        switch effect {
        case .check:
            return .checked(stillRemoving: stillRemoving, stepPassed: Bool.random(using: &random))
        case .runStep:
            return [.stepRan(nil), Fixed.stepFailed, Fixed.stepStopped].randomElement(using: &random)!
        case .readToken:
            let stale = [Fixed.stale, Fixed.older, Fixed.current].filter { _ in Bool.random(using: &random) }
            let current = Bool.random(using: &random) ? Fixed.current : nil
            let reads: [RemovalMachine.TokenRead] = [
                .found(current: current, staleNames: stale), .none, .unavailable(.locked, name: current, staleNames: stale),
            ]
            return .tokenRead(reads.randomElement(using: &random)!, stillRemoving: stillRemoving)
        case .revoke:
            let answers: [RevocationMachine.RevokeAnswer] = [
                .revoked, .unknownName, .refused(Fixed.revokeRefused), .failed(Fixed.down), .failed(Fixed.cancelled),
            ]
            return .revoke(answers.randomElement(using: &random)!)
        case .checkToken:
            return .check([.accepted, .refused, .failed(Fixed.down), .failed(Fixed.cancelled)].randomElement(using: &random)!)
        case .finish:
            preconditionFailure("the end answered")
        }
    }
}
