import GitbayAPI
import GitbayState
import GitbaySupport

/// An account's token renewal, as the machine that follows its pass in the same loop: each
/// step the renewal's machine returns is carried out (a request as a transfer with a
/// completion, a step of the store or the keyring as a short task of the round), and its
/// answer handed back to the machine here. The account keeps its place in the round's bounds
/// until its renewal ends; no other account waits on it.
extension PassPool {
    /// What reaches the loop of a renewal.
    enum RenewalArrival: Sendable {
        /// Its account and token read under its lease, and its first step; nil when nothing
        /// is due (or another process holds the lease).
        case began((TokenRenewer.Renewal, RenewalMachine.Effect)?)
        /// The store could not say what is due: the renewal fails, tried again next run.
        case unread(AccountFailure)
        /// What came of the step in flight, and the requests a discarded successor sent.
        case answered(RenewalMachine.Answer, discarded: Int)
        /// The renewal's end: the account's outcome with what it did.
        case ended(AccountOutcome)
    }

    private var renewer: TokenRenewer {
        TokenRenewer(store: store.store, options: store.options, logger: store.logger)
    }

    /// Begins the renewal of the account whose pass ended with `outcome`.
    func renew(_ outcome: AccountOutcome, token: Secret?, marker: String, of index: Int, _ group: inout TaskGroup<Void>) {
        let (renewer, sink) = (renewer, arrivals)
        group.addTask {
            do {
                sink.yield(.renewal(index, .began(try await renewer.begin(outcome, token: token, marker: marker))))
            } catch {
                sink.yield(.renewal(index, .unread(AccountFailure(error))))
            }
        }
    }

    /// Hands a renewal's arrival to its machine and carries out what comes next.
    func take(_ arrival: RenewalArrival, of index: Int, _ group: inout TaskGroup<Void>) {
        guard let lane = inFlight[index], var held = lane.held else { preconditionFailure("a renewal for no account held") }
        switch arrival {
        case .began(nil):
            end(held, of: index, &group)
        case .began(let (renewal, first)?):
            lane.renewal = renewal
            carryOut(first, of: index, &group)
        case .unread(let failure):
            lane.logger.warning("token.renew-failed", ["account.name": held.outcome.account, "error": failure.description])
            held.outcome.tokenRenewal = TokenRenewal()
            held.outcome.tokenRenewal?.failure = failure
            end(held, of: index, &group)
        case .answered(let answer, let discarded):
            lane.transfer = nil
            guard lane.renewal != nil else { preconditionFailure("an answer for no renewal") }
            lane.renewal?.discarded = discarded
            guard let next = lane.renewal?.machine.take(answer, at: store.options.now()) else { return }
            carryOut(next, of: index, &group)
        case .ended(let outcome):
            // A refusal the renewal recorded is the account's verdict now, not the pass's.
            if outcome.condition == .authFailed, held.outcome.condition != .authFailed { held.steady = nil }
            held.outcome = outcome
            end(held, of: index, &group)
        }
    }

    /// Carries out a step of the account's renewal: its end in a short task that records a
    /// refusal, a request with a completion, any other step in a short task that answers it.
    /// A stop cancels the request in flight,
    /// and after it no request is sent: the renewal ends as failed (a successor already minted
    /// is still made the account's token), and the next run takes up what is left.
    private func carryOut(_ effect: RenewalMachine.Effect, of index: Int, _ group: inout TaskGroup<Void>) {
        guard let lane = inFlight[index], let renewal = lane.renewal, let held = lane.held else {
            preconditionFailure("a renewal step for no renewal")
        }
        let (renewer, sink) = (renewer, arrivals)
        switch effect {
        case .finish:
            group.addTask { sink.yield(.renewal(index, .ended(await renewer.end(renewal, effect, outcome: held.outcome)))) }
        case .learnExpiry where stopped:
            // The successor is minted: it is made the account's token, its expiry learnt later.
            take(.answered(.expiry(nil), discarded: renewal.discarded), of: index, &group)
        case .listTokens where stopped, .revoke where stopped, .mint where stopped:
            let cancelled = GitbayError(kind: .transport(.cancelled), account: renewal.account.name, command: [])
            take(.answered(.failed(.other(.server(cancelled))), discarded: renewal.discarded), of: index, &group)
        case .listTokens, .revoke, .mint, .learnExpiry:
            // A request, with a completion: a stop cancels it (`PassPool.InFlight.transfer`).
            lane.transfer = renewer.start(effect, of: renewal) { sink.yield(.renewal(index, .answered($0, discarded: renewal.discarded))) }
        default:
            group.addTask {
                var renewal = renewal
                let answer = await renewer.carryOut(effect, of: &renewal)
                sink.yield(.renewal(index, .answered(answer, discarded: renewal.discarded)))
            }
        }
    }

    /// The account is done: its result, renewed or not.
    private func end(_ result: Reconciler.Reconciled, of index: Int, _ group: inout TaskGroup<Void>) {
        inFlight[index]?.renewal = nil
        finish(result, of: index, unsettled: nil, &group)
    }
}
