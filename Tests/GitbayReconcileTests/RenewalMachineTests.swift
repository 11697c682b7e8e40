import Foundation
import Testing

@testable import GitbayAPI
@testable import GitbayKeyring
@testable import GitbayReconcile
@testable import GitbayState
@testable import GitbaySupport

/// The token renewal machine, step by step: the clean-up, the rotation, the swap refused, and
/// each kind of failure.
@Suite("Renewal machine")
struct RenewalMachineTests {
    typealias Effect = RenewalMachine.Effect

    static let marker = "gbs-abcdef"
    static let current = "gitbay-sync-laptop-gbs-abcdef"
    static let stale = "gitbay-sync-laptop-gbs-abcdef-r20260101000000"
    static let now = Date(timeIntervalSinceReferenceDate: 820_000_000)
    static let lifetime = Duration.seconds(90 * 86400)
    static let refusal = GitbayError(kind: .authFailed, account: "alice@gitbay.example", command: ["token", "list"])
    static let down = GitbayError(kind: .transport(.timedOut(.request, limit: .seconds(30))), account: "alice", command: ["token", "revoke"])

    static func machine(expiresIn: TimeInterval, stale: [String] = [], item: String? = nil, staleItems: [String: String] = [:])
        -> RenewalMachine
    {
        RenewalMachine(
            RenewalMachine.Facts(
                details: APITokenDetails(name: current, expiresAt: now.addingTimeInterval(expiresIn), lifetime: lifetime),
                staleNames: stale, keyringItem: item, staleItems: staleItems, accountName: "alice@gitbay.example",
                installMarker: marker, keyringPresent: true))
    }

    @Test("nothing due: the end at once, with nothing sent")
    func nothingDue() {
        var machine = Self.machine(expiresIn: 80 * 86400)
        #expect(machine.start(at: Self.now) == .finish(TokenRenewal(), refused: nil))
        #expect(machine.isFinished && machine.writes == 0)
    }

    @Test("a stale name still listed is revoked, its item deleted (never the one in use) and forgotten; one not listed is only forgotten")
    func cleanUp() {
        let gone = "gitbay-sync-laptop-gbs-abcdef-r20250101000000"
        var machine = Self.machine(
            expiresIn: 80 * 86400, stale: [Self.stale, gone], item: "in-use", staleItems: [Self.stale: "old", gone: "in-use"])
        #expect(machine.start(at: Self.now) == .listTokens)
        #expect(machine.tokensListed([Self.current, Self.stale], expiries: [:], at: Self.now) == .revoke(name: Self.stale))
        #expect(machine.revokeAnswered(.unknownName) == .forgetPendingMint(name: Self.stale))
        #expect(machine.stepDone() == .deleteItem("old"))
        #expect(machine.stepDone() == .forgetStaleName(Self.stale))
        #expect(machine.stepDone() == .forgetStaleName(gone))
        var renewal = TokenRenewal()
        renewal.revoked = [Self.stale]
        #expect(machine.stepDone() == .finish(renewal, refused: nil))
        #expect(machine.writes == 1)
    }

    @Test(
        "near its expiry: successor recorded before the mint, into its own item, the server's expiry, the swap, then the predecessor revoked and forgotten"
    )
    func rotation() throws {
        var machine = Self.machine(expiresIn: 86400, item: "alice@gitbay.example")
        let first = machine.start(at: Self.now)
        guard case .recordSuccessor(let successor, let item?, Self.now) = first else {
            Issue.record("the successor's name first, with an item of its own: \(first)")
            return
        }
        #expect(successor != Self.current && item != "alice@gitbay.example")
        #expect(machine.stepDone() == .mint(name: successor, ttl: TokenRotation.ttl(Self.lifetime)))
        let token = Secret("new-token")
        #expect(machine.minted(token) == .storeInKeyring(token, item: item))
        #expect(machine.stepDone() == .learnExpiry(name: successor))
        let expiry = Self.now.addingTimeInterval(90 * 86400)
        let details = APITokenDetails(name: successor, expiresAt: expiry, lifetime: Self.lifetime)
        #expect(
            machine.expiryLearned(expiry)
                == .replace(predecessor: Self.current, token: token, keyringItem: item, details: details, at: Self.now))
        #expect(machine.replaced(true) == .revoke(name: Self.current))
        // Refused counts as revoked: the predecessor no longer works.
        #expect(machine.revokeAnswered(.refused(Self.refusal)) == .deleteItem("alice@gitbay.example"))
        #expect(machine.stepDone() == .forgetStaleName(Self.current))
        var renewal = TokenRenewal()
        (renewal.predecessor, renewal.successor, renewal.predecessorRevoked) = (Self.current, successor, true)
        #expect(machine.stepDone() == .finish(renewal, refused: nil))
        #expect(machine.writes == 2)
    }

    @Test("a swap the database refuses discards the successor and reports no rotation")
    func swapRefused() {
        var machine = Self.machine(expiresIn: 86400)
        guard case .recordSuccessor(let successor, nil, _) = machine.start(at: Self.now) else {
            Issue.record("no item for a token the database holds")
            return
        }
        _ = machine.stepDone()
        let token = Secret("new-token")
        #expect(machine.minted(token) == .learnExpiry(name: successor))
        _ = machine.expiryLearned(nil)
        #expect(machine.replaced(false) == .discard(token, name: successor, keyringItem: nil))
        #expect(machine.stepDone() == .finish(TokenRenewal(), refused: nil))
    }

    @Test("a refused list ends as refused; a keyring that does not answer waits; another failure is the renewal's")
    func failures() {
        var refused = Self.machine(expiresIn: 80 * 86400, stale: [Self.stale])
        _ = refused.start(at: Self.now)
        #expect(refused.failed(.refused(Self.refusal)) == .finish(TokenRenewal(), refused: Self.refusal))

        var locked = Self.machine(expiresIn: 86400, item: "alice@gitbay.example")
        _ = locked.start(at: Self.now)
        _ = locked.stepDone()
        _ = locked.minted(Secret("new-token"))
        let unavailable = KeyringUnavailable.locked
        var waiting = TokenRenewal()
        (waiting.keyringUnavailable, waiting.failure) = (unavailable, .local(.keyring(unavailable)))
        #expect(locked.failed(.keyring(unavailable)) == .finish(waiting, refused: nil))

        var failing = Self.machine(expiresIn: 86400)
        _ = failing.start(at: Self.now)
        _ = failing.stepDone()
        _ = failing.minted(Secret("new-token"))
        _ = failing.expiryLearned(nil)
        _ = failing.replaced(true)
        let end = failing.revokeAnswered(.failed(Self.down))
        guard case .finish(let renewal, nil) = end else {
            Issue.record("a failed revocation of the predecessor ends the renewal: \(end)")
            return
        }
        #expect(renewal.predecessor == Self.current && renewal.successor != nil && !renewal.predecessorRevoked)
        #expect(renewal.failure == .server(Self.down))
    }
}
