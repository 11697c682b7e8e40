import GitbayAPI
import GitbayKeyring
import GitbayState
import GitbaySupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One account's token renewal, as a value: an answer or a store result in, the next step
/// out. Everything `TokenRenewer` used to decide inline is here. The clean-up goes first when
/// stale names of this install are recorded: `token list`, the expiry the list tells for a
/// token whose expiry was not known, then each stale name still listed revoked (a 404 is
/// revoked already), its keyring item deleted (never the one in use) and its name forgotten.
/// Then the rotation, when the token is near its expiry (decided again on what the list told):
/// the successor's name recorded as stale before the mint, the mint, the successor into a
/// keyring item of its own, its expiry as the server lists it, the swap (which the database
/// refuses when the account was signed in again or is being removed: the successor then
/// discards itself), and the predecessor revoked (gone or refused counts as revoked), its item
/// deleted and its name forgotten.
///
/// No I/O, no clock: time comes in with `start(at:)` and `tokensListed(_:expiries:at:)`.
struct RenewalMachine: Sendable {
    /// What the driver does next.
    enum Effect: Sendable, Equatable {
        /// `token list`, with the current token.
        case listTokens
        /// Records the expiry the list told for the current token.
        case recordExpiry(Date, name: String)
        /// `token revoke <name>`, with the current token.
        case revoke(name: String)
        /// Forgets a name minted and pending for another sign-in on this instance.
        case forgetPendingMint(name: String)
        /// Deletes a keyring item of a token no longer in use.
        case deleteItem(String)
        /// Forgets a stale name of the account.
        case forgetStaleName(String)
        /// Records the successor's name (and its keyring item) as stale, before the mint.
        case recordSuccessor(name: String, keyringItem: String?, at: Date)
        /// `token create` of the successor, for `ttl`.
        case mint(name: String, ttl: String)
        /// Writes the successor to its keyring item.
        case storeInKeyring(Secret, item: String)
        /// The expiry the server lists for the successor (nil when the list fails).
        case learnExpiry(name: String)
        /// Makes the successor the account's token, recording the predecessor as stale.
        case replace(predecessor: String, token: Secret, keyringItem: String?, details: APITokenDetails, at: Date)
        /// Revokes a successor of no use with itself, deletes its item and forgets its name.
        case discard(Secret, name: String, keyringItem: String?)
        /// The end: what was renewed, and whether the server refused the token.
        case finish(TokenRenewal, refused: GitbayError?)
    }

    /// What failed in a step, as the driver classifies it.
    enum Failure: Sendable, Equatable {
        /// The server refused the token (401).
        case refused(GitbayError)
        /// The keyring did not answer: the account waits for it, never refused.
        case keyring(KeyringUnavailable)
        case other(AccountFailure)
    }

    /// What is fixed for the machine's life: the token as recorded (its secret is the
    /// driver's), the account's name and the install marker, and whether a keyring is there.
    struct Facts: Sendable {
        let details: APITokenDetails
        let staleNames: [String]
        let keyringItem: String?
        let staleItems: [String: String]
        let accountName: String
        let installMarker: String
        let keyringPresent: Bool
    }

    struct Rotation: Sendable {
        let predecessor: String
        let successor: String
        let item: String?
        let lifetime: Duration
        let at: Date
    }

    enum State: Sendable {
        case initial
        case listing
        case recordingExpiry(details: APITokenDetails, listed: Set<String>, at: Date)
        /// At the stale name `remaining.first`, in `stage`.
        case cleaning(details: APITokenDetails, listed: Set<String>, remaining: [String], stage: CleanStage, at: Date)
        case rotating(Rotation, RotationStage)
        case discarding
        case finished
    }

    enum CleanStage: Sendable {
        case revoking, forgettingMint, deletingItem, forgettingName
    }

    enum RotationStage: Sendable {
        case recordingName, minting, storingInKeyring(Secret), learningExpiry(Secret), replacing(Secret)
        case revokingPredecessor, deletingPredecessorItem, forgettingPredecessor
    }

    let facts: Facts
    var state = State.initial
    var renewal = TokenRenewal()
    /// The server's writes: revocations answered and the mint.
    var writes = 0

    init(_ facts: Facts) {
        self.facts = facts
    }

    var isFinished: Bool {
        if case .finished = state { true } else { false }
    }

    /// The first step: the clean-up's list when it is needed, else the rotation's first.
    mutating func start(at now: Date) -> Effect {
        guard case .initial = state else { preconditionFailure("started twice") }
        let need = TokenRotation.need(facts.details, staleNames: facts.staleNames, installMarker: facts.installMarker, now: now)
        if need.cleanUp {
            state = .listing
            return .listTokens
        }
        return need.rotate ? rotate(at: now) : finish()
    }

    /// The answer to `token list`: the names listed, and the expiry each tells (to the second).
    mutating func tokensListed(_ names: Set<String>, expiries: [String: Date], at now: Date) -> Effect {
        guard case .listing = state else { preconditionFailure("a token list in \(state)") }
        var details = facts.details
        if details.expiresAt == nil, details.lifetime != nil, let name = details.name, let expiresAt = expiries[name] {
            // An expiry the sign-in or the rotation could not learn: the server's answer, now.
            details.expiresAt = expiresAt
            state = .recordingExpiry(details: details, listed: names, at: now)
            return .recordExpiry(expiresAt, name: name)
        }
        return clean(details: details, listed: names, remaining: ourStaleNames, at: now)
    }

    /// A store or keyring step went through.
    mutating func stepDone() -> Effect {
        switch state {
        case .recordingExpiry(let details, let listed, let at):
            return clean(details: details, listed: listed, remaining: ourStaleNames, at: at)
        case .cleaning(let details, let listed, let remaining, let stage, let at):
            switch stage {
            case .forgettingMint: return afterRevoking(details: details, listed: listed, remaining: remaining, at: at)
            case .deletingItem:
                state = .cleaning(details: details, listed: listed, remaining: remaining, stage: .forgettingName, at: at)
                return .forgetStaleName(remaining[0])
            case .forgettingName: return clean(details: details, listed: listed, remaining: Array(remaining.dropFirst()), at: at)
            case .revoking: preconditionFailure("a step done while revoking")
            }
        case .rotating(let rotation, .recordingName):
            state = .rotating(rotation, .minting)
            return .mint(name: rotation.successor, ttl: TokenRotation.ttl(rotation.lifetime))
        case .rotating(let rotation, .storingInKeyring(let token)):
            state = .rotating(rotation, .learningExpiry(token))
            return .learnExpiry(name: rotation.successor)
        case .rotating(let rotation, .deletingPredecessorItem):
            state = .rotating(rotation, .forgettingPredecessor)
            return .forgetStaleName(rotation.predecessor)
        case .rotating(_, .forgettingPredecessor), .discarding:
            return finish()
        case .initial, .listing, .rotating, .finished:
            preconditionFailure("a step done in \(state)")
        }
    }

    /// The answer to the `token revoke` in flight.
    mutating func revokeAnswered(_ answer: RevocationMachine.RevokeAnswer) -> Effect {
        switch (state, answer) {
        case (.cleaning(_, _, _, .revoking, _), .refused(let error)):
            return failed(.refused(error))
        case (.cleaning(_, _, _, .revoking, _), .failed(let error)):
            return failed(.other(.server(error)))
        case (.cleaning(let details, let listed, let remaining, .revoking, let at), .revoked),
            (.cleaning(let details, let listed, let remaining, .revoking, let at), .unknownName):
            writes += 1
            renewal.revoked.append(remaining[0])
            // Its user's account revoked it: no longer pending for another sign-in there.
            state = .cleaning(details: details, listed: listed, remaining: remaining, stage: .forgettingMint, at: at)
            return .forgetPendingMint(name: remaining[0])
        case (.rotating(_, .revokingPredecessor), .failed(let error)):
            return failed(.other(.server(error)))
        case (.rotating(let rotation, .revokingPredecessor), _):
            // Gone already, or no longer taken: revoked either way.
            writes += 1
            renewal.predecessorRevoked = true
            guard let previous = facts.keyringItem else {
                state = .rotating(rotation, .forgettingPredecessor)
                return .forgetStaleName(rotation.predecessor)
            }
            state = .rotating(rotation, .deletingPredecessorItem)
            return .deleteItem(previous)
        default:
            preconditionFailure("a revocation's answer in \(state)")
        }
    }

    /// The stale names the clean-up goes through: this install's only.
    private var ourStaleNames: [String] {
        facts.staleNames.filter { TokenRotation.isThisInstalls($0, installMarker: facts.installMarker) }
    }

    /// The clean-up at `remaining.first`, or the rotation once none is left.
    private mutating func clean(details: APITokenDetails, listed: Set<String>, remaining: [String], at now: Date) -> Effect {
        guard let name = remaining.first else {
            // An expiry the list just told may be near already.
            let need = TokenRotation.need(facts.details, staleNames: facts.staleNames, installMarker: facts.installMarker, now: now)
            return need.rotate || TokenRotation.need(details, staleNames: [], installMarker: facts.installMarker, now: now).rotate
                ? rotate(at: now) : finish()
        }
        // The current token is never revoked here, whatever is recorded.
        guard name != facts.details.name, listed.contains(name) else {
            return afterRevoking(details: details, listed: listed, remaining: remaining, at: now)
        }
        state = .cleaning(details: details, listed: listed, remaining: remaining, stage: .revoking, at: now)
        return .revoke(name: name)
    }

    /// Revoked or never minted: its item goes before its name, never the item in use.
    private mutating func afterRevoking(details: APITokenDetails, listed: Set<String>, remaining: [String], at now: Date) -> Effect {
        let name = remaining[0]
        if let item = facts.staleItems[name], item != facts.keyringItem {
            state = .cleaning(details: details, listed: listed, remaining: remaining, stage: .deletingItem, at: now)
            return .deleteItem(item)
        }
        state = .cleaning(details: details, listed: listed, remaining: remaining, stage: .forgettingName, at: now)
        return .forgetStaleName(name)
    }

    mutating func finish(refused: GitbayError? = nil) -> Effect {
        state = .finished
        return .finish(renewal, refused: refused)
    }
}
