import GitbayAPI
import GitbayState
import GitbaySupport

/// An account's removal, as the machine that follows its pass in the same loop (or, for an
/// account the round left alone, its only machine): each step its `RemovalMachine` returns is
/// carried out as a short task of the round (a request as a transfer with a completion, which a stop cancels), and its
/// answer handed back to the machine here. The account keeps its place in the round's bounds
/// until its removal ends; no other account waits on it, nor on its pre-removal step.
extension PassPool {
    /// What reaches the loop of a removal.
    enum RemovalArrival: Sendable {
        /// What came of the step in flight, and the client of the token once read.
        case answered(RemovalMachine.Answer, client: GitbayClient?)
        /// The removal's end: how it ended (nil: left for a later run).
        case ended(AccountRemoval.Result?)
        /// The store failed: the removal is held for this run.
        case failed(AccountFailure)
    }

    /// What the loop keeps of an account's removal; only the loop touches it.
    final class RemovalLane {
        var removal: AccountRemoval.Ongoing
        /// The account's result before its removal.
        let held: Reconciler.Reconciled
        /// The request in flight, to cancel on a stop.
        var transfer: TransportTransfer?

        init(_ removal: AccountRemoval.Ongoing, held: Reconciler.Reconciled) {
            (self.removal, self.held) = (removal, held)
        }
    }

    /// Begins the removal of `account`, whose pass ended (or was left alone) with `result`.
    func remove(_ account: AccountRecord, after result: Reconciler.Reconciled, of index: Int, _ group: inout TaskGroup<Void>) {
        let lane = RemovalLane(AccountRemoval.Ongoing(account, after: result.outcome, force: false, inRun: true), held: result)
        removing[index] = lane
        carryOut(lane.removal.machine.start(), ofRemoval: index, &group)
    }

    /// Hands a removal's arrival to its machine and carries out what comes next.
    func take(_ arrival: RemovalArrival, ofRemoval index: Int, _ group: inout TaskGroup<Void>) {
        guard let lane = removing[index], let removals else { preconditionFailure("a removal's answer for no removal") }
        let account = lane.removal.account
        switch arrival {
        case .answered(let answer, let client):
            lane.transfer = nil
            if let client { lane.removal.client = client }
            let next = lane.removal.machine.take(answer, stopping: removals.removal.shutdown.phase != .running)
            carryOut(next, ofRemoval: index, &group)
        case .ended(let result):
            removals.end(account.id, result)
            var held = lane.held
            held.outcome = result?.outcome ?? lane.removal.machine.outcome
            close(held, of: index, instance: account.instance, &group)
        case .failed(let failure):
            // The store failed: this account's failure alone, its removal held for the next run.
            store.logger.warning("account.removal-held", ["account.name": account.name, "error": failure.description])
            var held = lane.held
            held.outcome = AccountRemoval.held(held.outcome, failure)
            close(held, of: index, instance: account.instance, &group)
        }
    }

    /// Carries out a step of the account's removal. After a stop no request is sent: the
    /// revocation fails as cancelled, and the removal is held for the next run.
    private func carryOut(_ effect: RemovalMachine.Effect, ofRemoval index: Int, _ group: inout TaskGroup<Void>) {
        guard let lane = removing[index], let removal = removals?.removal else { preconditionFailure("a removal step for no removal") }
        let (sink, ongoing) = (arrivals, lane.removal)
        switch effect {
        case .finish(let end):
            group.addTask {
                do {
                    sink.yield(.removal(index, .ended(try await removal.end(end, of: ongoing))))
                } catch {
                    sink.yield(.removal(index, .failed(AccountFailure(error))))
                }
            }
        case .revoke, .checkToken:
            guard let client = ongoing.client else { preconditionFailure("a request with no token read") }
            guard !stopped else {
                let cancelled = GitbayError(kind: .transport(.cancelled), account: client.accountName, command: [])
                let answer: RemovalMachine.Answer = if case .revoke = effect { .revoke(.failed(cancelled)) } else { .check(.failed(cancelled)) }
                return take(.answered(answer, client: nil), ofRemoval: index, &group)
            }
            lane.transfer = removal.start(effect, with: client) { sink.yield(.removal(index, .answered($0, client: nil))) }
        default:
            group.addTask {
                var ongoing = ongoing
                do {
                    let answer = try await removal.carryOut(effect, of: &ongoing)
                    sink.yield(.removal(index, .answered(answer, client: ongoing.client)))
                } catch {
                    sink.yield(.removal(index, .failed(AccountFailure(error))))
                }
            }
        }
    }
}
