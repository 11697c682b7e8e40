import GitbayAPI
import GitbayKeyring

/// The end of an account's removal once its deregistration is known, as a value: an answer
/// in, the next step (or the end) out. Everything the removal decides is here: whether it goes
/// on at all, the pre-removal step (unless it passed already in this removal), what holds it
/// and whether `--force` overrides that, the token read and the revocation of its names
/// (`RevocationMachine`, run inside), and when the account is deleted. No step runs once the
/// account is no longer in the removal it was read in: a sign-in made meanwhile wins.
///
/// `AccountRemoval` carries the steps out one after another for `remove-account`; a run's
/// `PassPool` carries them out as the account's next machine after its pass.
struct RemovalMachine: Sendable {
    /// What the driver does next.
    enum Effect: Sendable, Equatable {
        /// Read whether the account is still in this removal, and whether its step passed in it.
        case check
        /// Run the pre-removal step; when it passes, record that; when it fails, record the
        /// account as deregistered and held.
        case runStep
        /// Read the account's token (from the keyring when it lives there) and its names, then
        /// whether the account is still in this removal.
        case readToken
        /// `token revoke <name>`, sent with the account's token.
        case revoke(name: String)
        /// `whoami` with the account's token, whose name was just revoked.
        case checkToken(name: String)
        case finish(End)
    }

    /// How the removal ends; the driver carries it out.
    enum End: Sendable, Equatable {
        /// A run's pass did not deregister the device: the removal waits for a later run.
        case untouched(AccountOutcome)
        /// Held for `reason`; the account's status is saved as `saving` says (nil: as it is).
        case kept(AccountOutcome, reason: RemovalHold, saving: HeldStatus?)
        /// A stop came while the step ran (or before it started).
        case interrupted(AccountOutcome, reason: String)
        /// The account was signed in again (or paused, resumed) during the removal.
        case signedInAgain(AccountOutcome)
        /// Delete the account, its token and records; held for `hold` when `--force` overrode it.
        case delete(AccountOutcome, hold: RemovalHold?, token: TokenRevocation)
    }

    /// What came of the step in flight.
    enum Answer: Sendable, Equatable {
        case checked(stillRemoving: Bool, stepPassed: Bool)
        /// nil: the step passed.
        case stepRan(StepFailure?)
        case tokenRead(TokenRead, stillRemoving: Bool)
        case revoke(RevocationMachine.RevokeAnswer)
        case check(RevocationMachine.CheckAnswer)
    }

    private enum State: Sendable {
        case initial
        case checking
        case stepping
        case reading(hold: RemovalHold?)
        case revoking(hold: RemovalHold?, token: TokenRevocation, revocation: RevocationMachine)
        case finished
    }

    private var state = State.initial
    /// The account's outcome as the removal goes: the pass's, then what the removal made of it.
    private(set) var outcome: AccountOutcome
    /// `--force`: delete although the removal is held (never once a stop was requested).
    let force: Bool
    /// A stop was requested: it holds the removal whatever `force` says, as the user asked to
    /// stop, not to delete.
    private var stopping = false
    /// A run's removal: it goes on only when the pass deregistered the device (or the token
    /// was refused after the step passed); `remove-account`'s goes on to say what holds it.
    let inRun: Bool

    init(after outcome: AccountOutcome, force: Bool, inRun: Bool) {
        var outcome = outcome
        if inRun, outcome.condition == .authFailed, outcome.skipReason == nil {
            // Refused now: no later run sends the token again.
            outcome.skipReason = .removalTokenRefused
        }
        (self.outcome, self.force, self.inRun) = (outcome, force, inRun)
    }

    var isFinished: Bool {
        if case .finished = state { true } else { false }
    }

    mutating func start() -> Effect {
        guard case .initial = state else { preconditionFailure("started twice") }
        state = .checking
        return .check
    }

    /// The answer to the step in flight; `stopping`: a stop was requested.
    mutating func take(_ answer: Answer, stopping: Bool) -> Effect {
        self.stopping = self.stopping || stopping
        switch (state, answer) {
        case (.checking, .checked(let stillRemoving, let stepPassed)):
            return checked(stillRemoving: stillRemoving, stepPassed: stepPassed)
        case (.stepping, .stepRan(nil)):
            return decide(nil)
        case (.stepping, .stepRan(let failure?)):
            guard !failure.interrupted else {
                return finish(.interrupted(AccountRemoval.held(outcome, .local(.removalStep(failure.detail))), reason: failure.detail))
            }
            return decide(.stepFailed(failure.detail))
        case (.reading(let hold), .tokenRead(let read, let stillRemoving)):
            return tokenRead(read, stillRemoving: stillRemoving, hold: hold)
        case (.revoking(let hold, let token, var revocation), .revoke(let revokeAnswer)):
            return revoking(revocation.revokeAnswered(revokeAnswer), revocation, hold: hold, token: token)
        case (.revoking(let hold, let token, var revocation), .check(let checkAnswer)):
            return revoking(revocation.tokenChecked(checkAnswer), revocation, hold: hold, token: token)
        default:
            preconditionFailure("\(answer) in \(state)")
        }
    }

    private mutating func checked(stillRemoving: Bool, stepPassed: Bool) -> Effect {
        let deregistered = !outcome.isFailure && outcome.action != .skipped
        // Refused after the step passed (so after this device was deregistered): the token's
        // revocation went through and its answer was lost (a crash), or it expired.
        let revokedAfterStep = outcome.condition == .authFailed && stepPassed
        if inRun, !deregistered, !revokedAfterStep { return finish(.untouched(outcome)) }
        guard stillRemoving else { return finish(.signedInAgain(outcome)) }
        if revokedAfterStep { (outcome.action, outcome.condition, outcome.failure, outcome.skipReason) = (.unchanged, .removing, nil, nil) }
        guard !(outcome.isFailure || outcome.action == .skipped) else {
            return decide(.deregistrationFailed(outcome.failure ?? Self.skipFailure(outcome.skipReason)))
        }
        guard stepPassed else {
            state = .stepping
            return .runStep
        }
        return decide(nil)
    }

    /// What kept a skipped pass from deregistering the device: the keyring that did not give
    /// the token, else the server the pass could not reach.
    private static func skipFailure(_ reason: RunSchedule.SkipReason?) -> AccountFailure {
        if case .keyringUnavailable(let unavailable) = reason { return .local(.keyring(unavailable)) }
        return .local(.other("the server could not be reached"))
    }

    /// Whether `--force` overrides a hold now.
    private var overrides: Bool { force && !stopping }

    /// Held for `hold` unless `--force` overrides it.
    private mutating func decide(_ hold: RemovalHold?) -> Effect {
        if let hold, !overrides { return finish(.kept(AccountRemoval.held(outcome, hold.failure), reason: hold, saving: nil)) }
        state = .reading(hold: hold)
        return .readToken
    }

    private mutating func tokenRead(_ read: TokenRead, stillRemoving: Bool, hold: RemovalHold?) -> Effect {
        var hold = hold
        var token: TokenRevocation
        let names: (current: String?, stale: [String])?
        switch read {
        case .unavailable(let unavailable, let name, let staleNames):
            // The keyring holds the token and does not answer: it cannot be revoked yet.
            let revocation = RemovalHold.revocationFailed(name: name ?? "", failure: .local(.keyring(unavailable)))
            guard overrides else {
                return keep(revocation, saving: HeldStatus(detail: AccountRemoval.revocationFailedDetail, error: unavailable.description))
            }
            hold = hold ?? revocation
            // Not read, so not revoked: whatever its name, it stays valid.
            (names, token) = (nil, TokenRevocation(.unread(name: name), staleLeft: staleNames.filter { $0 != name }))
        case .none:
            (names, token) = (nil, .unnamed)
        case .found(let current, let staleNames):
            names = (current, staleNames)
            let refused = outcome.condition == .authFailed
            let said: TokenRevocation.Current = refused ? .refused(name: current) : current.map { .notRevoked(name: $0) } ?? .unnamed
            token = TokenRevocation(said, staleLeft: staleNames.filter { $0 != current })
        }
        // Checked after the read: a sign-in since the removal began replaced the token and its name.
        guard stillRemoving else { return finish(.signedInAgain(outcome)) }
        // The server answered the deregistration: the tokens are revoked there, the last requests sent with the current one.
        guard hold?.deregistered ?? true, let names, names.current != nil || !names.stale.isEmpty else {
            return finish(.delete(outcome, hold: hold, token: token))
        }
        var revocation = RevocationMachine(current: names.current, staleNames: names.stale)
        return revoking(revocation.start(), revocation, hold: hold, token: token)
    }

    /// Hands the revocation's next step out, or, at its end, holds or deletes.
    private mutating func revoking(
        _ effect: RevocationMachine.Effect, _ revocation: RevocationMachine, hold: RemovalHold?, token: TokenRevocation
    ) -> Effect {
        switch effect {
        case .revoke(let name):
            state = .revoking(hold: hold, token: token, revocation: revocation)
            return .revoke(name: name)
        case .checkToken(let name):
            state = .revoking(hold: hold, token: token, revocation: revocation)
            return .checkToken(name: name)
        case .finish(let result):
            outcome.writes += revocation.writes
            return revoked(result, hold: hold, unsent: token)
        }
    }

    /// The end after the revocation; `unsent`: what became of the tokens if nothing was revoked.
    private mutating func revoked(
        _ result: Result<TokenRevocation, RevocationMachine.Failure>, hold: RemovalHold?, unsent: TokenRevocation
    ) -> Effect {
        switch result {
        case .success(let revoked):
            guard case .stillValid(let name, let nameKnown) = revoked.current else {
                return finish(.delete(outcome, hold: hold, token: revoked))
            }
            let revocation = RemovalHold.tokenStillValid(name: name, nameKnown: nameKnown)
            guard overrides else {
                return keep(revocation, saving: HeldStatus(detail: AccountRemoval.tokenStillValidDetail, error: revocation.failure.description))
            }
            return finish(.delete(outcome, hold: hold ?? revocation, token: revoked))
        case .failure(let failure):
            let revocation = RemovalHold.revocationFailed(name: failure.name, failure: failure.failure)
            // A stop cut it short: held whatever `force` says.
            guard overrides, !revocation.revocationInterrupted else {
                let detail = revocation.revocationInterrupted ? AccountRemoval.revocationInterruptedDetail : AccountRemoval.revocationFailedDetail
                return keep(revocation, saving: HeldStatus(detail: detail, error: failure.failure.description))
            }
            // The current token is not known revoked; the stale names revoked before the failure are.
            var token = unsent
            token.staleLeft = failure.staleLeft
            return finish(.delete(outcome, hold: hold ?? revocation, token: token))
        }
    }

    private mutating func keep(_ hold: RemovalHold, saving: HeldStatus) -> Effect {
        finish(.kept(AccountRemoval.held(outcome, hold.failure), reason: hold, saving: saving))
    }

    private mutating func finish(_ end: End) -> Effect {
        state = .finished
        return .finish(end)
    }
}
