import GitbayState
import GitbaySupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The rotation's events (the mint, the successor's expiry, the swap), and a failure.
extension RenewalMachine {
    /// The answer to `token create`: the successor.
    mutating func minted(_ token: Secret) -> Effect {
        guard case .rotating(let rotation, .minting) = state else { preconditionFailure("a mint's answer in \(state)") }
        writes += 1
        if let item = rotation.item {
            state = .rotating(rotation, .storingInKeyring(token))
            return .storeInKeyring(token, item: item)
        }
        state = .rotating(rotation, .learningExpiry(token))
        return .learnExpiry(name: rotation.successor)
    }

    /// The successor's expiry as the server lists it; nil when the list failed (a later run learns it).
    mutating func expiryLearned(_ expiresAt: Date?) -> Effect {
        guard case .rotating(let rotation, .learningExpiry(let token)) = state else { preconditionFailure("an expiry in \(state)") }
        state = .rotating(rotation, .replacing(token))
        let details = APITokenDetails(name: rotation.successor, expiresAt: expiresAt, lifetime: rotation.lifetime)
        return .replace(predecessor: rotation.predecessor, token: token, keyringItem: rotation.item, details: details, at: rotation.at)
    }

    /// Whether the swap went through (false: the account was signed in again or is being
    /// removed, and the successor is of no use).
    mutating func replaced(_ swapped: Bool) -> Effect {
        guard case .rotating(let rotation, .replacing(let token)) = state else { preconditionFailure("a swap in \(state)") }
        guard swapped else {
            state = .discarding
            return .discard(token, name: rotation.successor, keyringItem: rotation.item)
        }
        (renewal.predecessor, renewal.successor) = (rotation.predecessor, rotation.successor)
        state = .rotating(rotation, .revokingPredecessor)
        return .revoke(name: rotation.predecessor)
    }

    /// The rotation's first step: the successor's name recorded, unless there is nothing to
    /// rotate (no name or lifetime, a successor named as the token is) or no keyring to take
    /// the successor of a token the keyring holds.
    mutating func rotate(at now: Date) -> Effect {
        guard let name = facts.details.name, let lifetime = facts.details.lifetime else { return finish() }
        let successor = TokenRotation.successorName(of: name, at: now)
        guard successor != name else { return finish() }
        let item = facts.keyringItem.map { _ in TokenRotation.keyringItem(of: facts.accountName, tokenName: successor) }
        guard item == nil || facts.keyringPresent else { return finish() }
        let rotation = Rotation(predecessor: name, successor: successor, item: item, lifetime: lifetime, at: now)
        state = .rotating(rotation, .recordingName)
        return .recordSuccessor(name: successor, keyringItem: item, at: now)
    }

    /// A step failed: the renewal ends; the next run tries again.
    mutating func failed(_ failure: Failure) -> Effect {
        switch state {
        case .initial, .finished, .discarding: preconditionFailure("a failure in \(state)")
        default: break
        }
        switch failure {
        case .refused(let error): return finish(refused: error)
        case .keyring(let unavailable): (renewal.keyringUnavailable, renewal.failure) = (unavailable, .local(.keyring(unavailable)))
        case .other(let failure): renewal.failure = failure
        }
        return finish()
    }
}

/// What came of an effect, as the loop carrying the machine out hands it back.
extension RenewalMachine {
    enum Answer: Sendable {
        case listed(Set<String>, expiries: [String: Date])
        case done
        case revoke(RevocationMachine.RevokeAnswer)
        case minted(Secret)
        case expiry(Date?)
        case replaced(Bool)
        case failed(Failure)
    }

    /// Hands `answer` to the step it answers; `now` is the time it came.
    mutating func take(_ answer: Answer, at now: Date) -> Effect {
        switch answer {
        case .listed(let names, let expiries): tokensListed(names, expiries: expiries, at: now)
        case .done: stepDone()
        case .revoke(let answer): revokeAnswered(answer)
        case .minted(let token): minted(token)
        case .expiry(let expiresAt): expiryLearned(expiresAt)
        case .replaced(let swapped): replaced(swapped)
        case .failed(let failure): failed(failure)
        }
    }
}
