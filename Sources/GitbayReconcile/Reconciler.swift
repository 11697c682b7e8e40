import GitbayAPI
import GitbayState
import GitbaySupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Reconciles every account: decides each account's desire (`RunSchedule`) and runs the
/// accounts concurrently, every instance at once and a few accounts of each at a time, each
/// through its own client.
package struct Reconciler: Sendable {
    let store: StateStore
    let options: Options
    let logger: Logger
    /// The run history row this reconciler's rounds wrote, when `options.history` asks for one.
    let history = RunHistoryNote()

    package init(store: StateStore, options: Options, logger: Logger) {
        self.store = store
        self.options = options
        self.logger = logger
    }

    /// One reconcile of every account (or of `only` these), in sign-in order of the results.
    /// Who holds the token on an instance is decided from every account, whichever run.
    /// Everything is read before the first request, in one query a table. Accounts another
    /// live process is reconciling are left to it; no lock is held while waiting on a server,
    /// only a lease row per account, taken before its first write. The verdicts of accounts
    /// where nothing changed are recorded together at the end, in one transaction.
    ///
    /// What one round leaves for another account's own pass is taken up in the same run: the
    /// accounts whose row was put in doubt during the round, those of servers a proof made in
    /// it merged, and those whose row left the list right after it was written are reconciled
    /// again at once (at most `rounds` rounds in all). The removal of an account of
    /// `options.removals` is finished right after its pass of the first round (or in its place,
    /// when the round left the account alone), and the token of one of `options.renewing` is
    /// renewed right after that pass, in the same round.
    package func reconcile(only: Set<Int64>? = nil) async throws -> [AccountOutcome] {
        var round = try await reconcileRound(only: only, progress: options.progress)
        var outcomes = round.outcomes
        for _ in 1..<Self.rounds {
            // An account that failed in this run is not tried again in it: a hung server would
            // cost its deadline twice. Its doubt stays for the next run.
            let failed = Set(outcomes.filter { $0.action == .failed }.map(\.accountID))
            // An account whose removal was decided after its pass keeps its doubt for the next run too.
            let again = try await leftForAnotherRound(round, only: only).subtracting(failed).filter { options.removals?.removing[$0] == nil }
            guard !again.isEmpty, options.mayStartMore() else { break }
            round = try await reconcileRound(only: again, progress: Self.changes(from: outcomes, to: options.progress), later: true)
            outcomes = Self.replacing(outcomes, with: round.outcomes)
        }
        return outcomes
    }

    /// What a later round tells `progress`: only an account's outcome that says something
    /// else than the one told already.
    private static func changes(
        from told: [AccountOutcome], to progress: Options.Listener?
    ) -> Options.Listener? {
        guard let progress else { return nil }
        let said = Dictionary(told.map { ($0.accountID, $0.condition) }, uniquingKeysWith: { first, _ in first })
        return { event in
            if case .finished(let outcome) = event, outcome.action != .skipped, said[outcome.accountID] != outcome.condition { progress(event) }
        }
    }

    /// What one round did, and what it leaves for another.
    private struct Round {
        var outcomes: [AccountOutcome]
        /// The accounts whose row left the list right after it was written.
        var checkAgain: Set<Int64>
        /// The doubts raised, and the server names, as the round began.
        var doubtMark: Int64
        var names: ServerNames
    }

    /// The accounts (of `only`, when given) the round leaves for another: those whose row was
    /// put in doubt during it, those of the servers a proof made in it merged, and those whose
    /// row left the list right after it was written. A steady run reads two small tables here,
    /// not every account.
    private func leftForAnotherRound(_ round: Round, only: Set<Int64>?) async throws -> Set<Int64> {
        var again = try await store.accountsDoubted(after: round.doubtMark).union(round.checkAgain)
        let names = try await store.serverNames()
        if names != round.names {
            again.formUnion(try await store.accounts().filter { names.names(of: $0.instance) != round.names.names(of: $0.instance) }.map(\.id))
        }
        return again.filter { only?.contains($0) ?? true }
    }

    /// `outcomes` with the accounts of `later` replaced by their later outcome, which counts
    /// the requests and writes of both, and keeps the earlier action when the later one
    /// changed nothing, and the earlier token renewal; a later skip replaces nothing. Accounts only `later` has come last.
    static func replacing(_ outcomes: [AccountOutcome], with later: [AccountOutcome]) -> [AccountOutcome] {
        var byID = Dictionary(later.map { ($0.accountID, $0) }, uniquingKeysWith: { first, _ in first })
        var result = outcomes.map { earlier -> AccountOutcome in
            guard var replaced = byID.removeValue(forKey: earlier.accountID), replaced.action != .skipped else { return earlier }
            replaced.requests += earlier.requests
            replaced.writes += earlier.writes
            if replaced.action == .unchanged, earlier.action != .failed { replaced.action = earlier.action }
            // The first round's renewal stands: a later round renews nothing.
            replaced.tokenRenewal = replaced.tokenRenewal ?? earlier.tokenRenewal
            return replaced
        }
        result += later.filter { byID[$0.accountID] != nil }
        return result
    }

    /// One round: every account (or `only` these) reconciled once.
    /// A `later` round notes no account as unchecked: a skip there replaces nothing the first
    /// round found (`replacing`).
    private func reconcileRound(only: Set<Int64>?, progress: Options.Listener?, later: Bool = false) async throws -> Round {
        let facts = try await store.runFacts()
        if !later { progress?(.read(facts.accounts)) }
        let moves = await tokens.moveIntoKeyring(
            facts.awaitingKeyring, of: facts.accounts, tokens: facts.apiTokens, installMarker: facts.device.installMarker, logger: logger)
        let (entries, apiTokens) = await withTokens(entries(facts, only: only), facts)
        let pending = entries.compactMap { entry -> (AccountRecord, Desire)? in
            if case .reconcile(let account, let desire) = entry { (account, desire) } else { nil }
        }
        let removals = later ? nil : options.removals
        // A removing account left alone still has its removal to finish: the pool tells it.
        let leftAlone = entries.compactMap(\.skippedOutcome).filter { removals?.removing[$0.accountID] != nil }
        let skipped = entries.compactMap(\.skippedOutcome).filter { removals?.removing[$0.accountID] == nil }
        if let progress { skipped.forEach { progress(.finished($0)) } }
        var reconciled = await reconcileConcurrently(
            pending, facts: facts, tokens: apiTokens, after: (later ? nil : options.renewing, removals), leftAlone: leftAlone, progress: progress)
        // The full round's row goes into the run history with the steady verdicts: the run's end
        // writes it again only when it has more to say.
        var outcomes = Self.sorted(skipped + reconciled.map(\.outcome), facts)
        let run =
            only != nil
            ? nil
            : options.history.map { start in
                RunHistoryRecord(start: start, finishedAt: options.now(), outcomes, interrupted: !options.mayStartMore())
            }
        // A verdict that could not be recorded turns its outcome into a failure.
        if await !recordSteadyVerdicts(&reconciled, read: facts, run: run) {
            outcomes = Self.sorted(skipped + reconciled.map(\.outcome), facts)
        }
        if !later { await noteUnchecked(outcomes, facts) }
        if !moves.isEmpty {
            let byName = Dictionary(
                facts.accounts.compactMap { account in moves[account.id].map { (account.name, $0) } }, uniquingKeysWith: { first, _ in first })
            for index in outcomes.indices { outcomes[index].tokenMove = byName[outcomes[index].account] }
        }
        return Round(
            outcomes: outcomes, checkAgain: Set(reconciled.filter(\.checkAgain).map(\.outcome.accountID)),
            doubtMark: facts.doubtMark, names: facts.names)
    }

    /// Notes why each account the round could not check was not, on its own behalf; a store
    /// that cannot take it loses only the note (the outcomes still say it).
    private func noteUnchecked(_ outcomes: [AccountOutcome], _ facts: RunFacts) async {
        let unchecked = outcomes.compactMap { outcome in outcome.unchecked.map { (id: outcome.accountID, reason: $0) } }
        try? await store.noteUnchecked(unchecked, at: options.now())
    }

    /// `outcomes` in the accounts' sign-in order.
    private static func sorted(_ outcomes: [AccountOutcome], _ facts: RunFacts) -> [AccountOutcome] {
        let order = Dictionary(facts.accounts.enumerated().map { ($1.id, $0) }, uniquingKeysWith: { first, _ in first })
        // Each outcome's place is looked up once, not at every comparison, and the indices are
        // sorted rather than the outcomes, which are large to move.
        let places = outcomes.map { order[$0.accountID] ?? 0 }
        return outcomes.indices.sorted { (places[$0], $0) < (places[$1], $1) }.map { outcomes[$0] }
    }

    /// What a run does with each account (or `only` these): the schedule's entries, with the
    /// accounts another live process holds left to it.
    func entries(_ facts: RunFacts, only: Set<Int64>?) -> [RunSchedule.Entry] {
        let now = options.now()
        let scheduled = RunSchedule.entries(
            accounts: facts.accounts, statuses: facts.statuses, preferred: facts.preferred, names: facts.names,
            hasDeviceToken: facts.device.token != nil, honourBackoff: options.honourBackoff, now: now
        ).filter { only?.contains($0.account.id) ?? true }
        let holder = options.leaseHolder
        let heldElsewhere = facts.leases.filter { _, lease in
            (lease.holderPID != holder.pid || lease.holderID != holder.id) && lease.isLive(at: now)
        }
        return RunSchedule.leaving(scheduled, heldElsewhere: heldElsewhere, statuses: facts.statuses)
    }

    /// The accounts' API tokens, in the database and the keyring of `options`.
    var tokens: APITokens { APITokens(store: store, keyring: options.keyring) }

    /// The token of every account the entries reconcile, the keyring read once when it holds
    /// any of theirs; when it cannot be read, those accounts wait for it instead.
    func withTokens(_ entries: [RunSchedule.Entry], _ facts: RunFacts) async -> ([RunSchedule.Entry], [Int64: Secret]) {
        let reconciled = entries.compactMap { entry -> AccountRecord? in
            if case .reconcile(let account, _) = entry { account } else { nil }
        }
        let (apiTokens, unavailable) = await tokens.tokens(of: reconciled, facts: facts)
        guard let unavailable else { return (entries, apiTokens) }
        return (RunSchedule.waiting(entries, forKeyring: unavailable, inKeyring: facts.keyringTokens, statuses: facts.statuses), apiTokens)
    }

    /// One account's outcome, and the times still to record when nothing else changed.
    package struct Reconciled: Sendable, Equatable {
        package var outcome: AccountOutcome
        package var steady: Steady?
        /// The account is reconciled again in the same run (`AccountPass.checkAgain`).
        package var checkAgain = false

        package init(outcome: AccountOutcome, steady: Steady? = nil) {
            self.outcome = outcome
            self.steady = steady
        }
    }

    /// How many times an account is planned in one run when what it should have keeps
    /// changing under the run.
    static let passes = AccountPass.maximumPasses

    /// How many rounds one run makes at most: the first, and those that take up what a round
    /// left for another account's pass (a doubt, a proof, a row taken at once).
    static let rounds = 4
}
