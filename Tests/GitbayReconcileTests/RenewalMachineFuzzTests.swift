import Foundation
import TestSupport
import Testing

@testable import GitbayAPI
@testable import GitbayKeyring
@testable import GitbayReconcile
@testable import GitbayState
@testable import GitbaySupport

/// The token renewal machine fed random legal answers, with invariants after each step.
/// `GITBAY_SYNC_PASS_SEED` replays a seed.
@Suite("Renewal machine, random answers")
struct RenewalMachineFuzzTests {
    typealias Effect = RenewalMachine.Effect
    typealias Fixed = RenewalMachineTableTests

    static let failures: [RenewalMachine.Failure] = [.refused(Fixed.refusal), .keyring(.locked), .other(.server(Fixed.down))]

    @Test(
        "random legal answers: the token in use is neither revoked nor its item deleted before the swap, only this install's names are revoked, a mint follows its name's record, and it ends"
    )
    func randomAnswers() {
        let seed = SplitMix64.seed(from: "GITBAY_SYNC_PASS_SEED")
        var random = SplitMix64(seed: seed)
        let names = [Fixed.stale, Fixed.current + "-r20250101000000", "gitbay-sync-desk-gbs-zzzzzz", Fixed.current]
        for _ in 0..<2000 {
            let stale = names.filter { _ in Bool.random(using: &random) }
            let item: String? = Bool.random(using: &random) ? "in-use" : nil
            let staleItems = Dictionary(
                uniqueKeysWithValues: stale.filter { _ in Bool.random(using: &random) }.map {
                    ($0, Bool.random(using: &random) ? "in-use" : "old-\($0)")
                })
            let expiresIn = [80.0, 40, 10].randomElement(using: &random)! * 86_400
            var machine = RenewalMachine(Fixed.facts(expiresIn: expiresIn, stale: stale, item: item, staleItems: staleItems))
            var effect = machine.start(at: Fixed.now)
            var (recorded, swapped, steps) = (Set<String>(), false, 0)
            while steps < 100 {
                steps += 1
                if case .finish = effect { break }
                check(effect, recorded: recorded, swapped: swapped, item: item, seed: seed)
                if case .recordSuccessor(let name, _, _) = effect { recorded.insert(name) }
                (effect, swapped) = Self.answer(effect, &machine, &random, swapped: swapped)
            }
            #expect(machine.isFinished, "seed \(seed): no end after \(steps) steps")
        }
    }

    /// The invariants that hold whatever was answered before `effect`.
    private func check(_ effect: Effect, recorded: Set<String>, swapped: Bool, item: String?, seed: UInt64) {
        switch effect {
        case .revoke(let name):
            #expect(swapped || name != Fixed.current, "seed \(seed): the token in use revoked before the swap")
            #expect(TokenRotation.isThisInstalls(name, installMarker: Fixed.marker), "seed \(seed): \(name) is not this install's")
        case .deleteItem(let deleted):
            #expect(swapped || deleted != item, "seed \(seed): the item in use deleted before the swap")
        case .mint(let name, _):
            #expect(recorded.contains(name), "seed \(seed): \(name) minted before it was recorded")
        case .replace(let predecessor, _, _, _, _):
            #expect(predecessor == Fixed.current, "seed \(seed): swapped from \(predecessor)")
        default:
            break
        }
    }

    /// A random legal answer to `effect`, and whether the swap has now been made.
    private static func answer(_ effect: Effect, _ machine: inout RenewalMachine, _ random: inout SplitMix64, swapped: Bool) -> (Effect, Bool) {
        let fails = Int.random(in: 0..<5, using: &random) == 0
        switch effect {
        case .listTokens:
            if fails { return (machine.failed(failures.randomElement(using: &random)!), swapped) }
            let listed = Set(([Fixed.stale, Fixed.current + "-r20250101000000", Fixed.current]).filter { _ in Bool.random(using: &random) })
            let expiries = Bool.random(using: &random) ? [Fixed.current: Fixed.now.addingTimeInterval(10 * 86_400)] : [:]
            return (machine.tokensListed(listed, expiries: expiries, at: Fixed.now), swapped)
        case .revoke:
            let answers: [RevocationMachine.RevokeAnswer] = [.revoked, .unknownName, .refused(Fixed.refusal), .failed(Fixed.down)]
            return (machine.revokeAnswered(answers.randomElement(using: &random)!), swapped)
        case .mint:
            return (fails ? machine.failed(failures.randomElement(using: &random)!) : machine.minted(Secret("gb_successor")), swapped)
        case .learnExpiry:
            return (machine.expiryLearned(Bool.random(using: &random) ? Fixed.now.addingTimeInterval(90 * 86_400) : nil), swapped)
        case .replace:
            if fails { return (machine.failed(.other(.server(Fixed.down))), swapped) }
            let made = Bool.random(using: &random)
            return (machine.replaced(made), swapped || made)
        case .discard:
            return (machine.stepDone(), swapped)
        case .recordExpiry, .forgetPendingMint, .deleteItem, .forgetStaleName, .recordSuccessor, .storeInKeyring:
            return (fails ? machine.failed(failures.randomElement(using: &random)!) : machine.stepDone(), swapped)
        case .finish:
            preconditionFailure("the end answered")
        }
    }
}
