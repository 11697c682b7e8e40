import GitbayState

/// The adds of a run take turns, and what they proved is kept for the run. An add and the
/// record it leaves are what the next add of the same device token looks for on other
/// servers' accounts (`SameServerCheck`): were two adds in flight at once, each could miss
/// the other, and two names of one server would trade the row unproven.
actor AddTurns {
    private var busy = false
    private var waiting: [CheckedContinuation<Void, Never>] = []
    private var proven: [SameServerRecord] = []

    /// Waits until no other add of the run is in its turn, and takes the turn; `waiting` is
    /// called first when another add has it. The taker gives it back with `end()`, however its
    /// add ends.
    func begin(waiting said: @Sendable () -> Void = {}) async {
        guard busy else {
            busy = true
            return
        }
        said()
        await withCheckedContinuation { waiting.append($0) }
    }

    func end() {
        if waiting.isEmpty { busy = false } else { waiting.removeFirst().resume() }
    }

    /// Notes a proof made in this run.
    func noteProven(_ proof: SameServerRecord) {
        proven.append(proof)
    }

    /// The proofs made since the last call.
    func takeProven() -> [SameServerRecord] {
        defer { proven = [] }
        return proven
    }
}
