import GitbayState

/// The passes that changed nothing: their verdicts, recorded together at the end of a round.
extension Reconciler {
    /// The verdict of a pass where nothing changed, and the desire it was planned for.
    package struct Steady: Sendable, Equatable {
        package let verdict: SteadyVerdict
        package let snapshot: DesireSnapshot

        package init(verdict: SteadyVerdict, snapshot: DesireSnapshot) {
            self.verdict = verdict
            self.snapshot = snapshot
        }
    }

    /// Records the times of every account where nothing changed, in one transaction, for each
    /// only while what it should have is still what its pass planned for; `run` goes into the
    /// run history in the same transaction. False when they could not be recorded: their
    /// outcomes are failures then.
    func recordSteadyVerdicts(_ reconciled: inout [Reconciled], read facts: RunFacts, run: RunHistoryRecord?) async -> Bool {
        let steady = reconciled.compactMap(\.steady)
        guard !steady.isEmpty else { return true }
        do {
            try await store.saveSteadyVerdicts(steady.map(\.verdict), read: facts, run: run) { facts in
                let planned = Dictionary(steady.map { ($0.verdict.accountID, $0.snapshot) }, uniquingKeysWith: { first, _ in first })
                let now = DesireSnapshot.all(facts)
                return Set(planned.filter { id, snapshot in now[id] == snapshot }.keys)
            }
            if let run { history.note(run) }
            return true
        } catch {
            for index in reconciled.indices where reconciled[index].steady != nil {
                reconciled[index].outcome.action = .failed
                reconciled[index].outcome.failure = AccountFailure(error)
            }
            return false
        }
    }
}
