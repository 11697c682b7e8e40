#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The accounts of a round whose pass runs again (`SameServerCheck`: another account's add
/// recorded their row's id under another name), and each account's latest result: a value the
/// round's loop keeps, by the accounts' places in the round.
struct PassesAgain {
    /// How many times one account's pass runs again in a round at most: adds under two names
    /// whose rows cannot be told apart settle within a few passes; past that, the next run goes on.
    static let most = 3

    /// Each account's place in the round, by account id.
    private let places: [Int64: Int]
    /// When the round began: a pass run again proves a move only from records made since.
    private let since: Date
    /// Due once the account's pass in flight ends.
    private var due: Set<Int> = []
    /// Queued to run again, not started yet.
    private var queued: Set<Int> = []
    private var inFlight: Set<Int> = []
    /// Where each account's result is in `results`.
    private var place: [Int: Int] = [:]
    private var times: [Int: Int] = [:]
    /// The results, in the order the accounts first ended.
    private(set) var results: [Reconciler.Reconciled] = []

    init(accountIDs: [Int64], since: Date) {
        places = Dictionary(accountIDs.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
        self.since = since
    }

    /// Notes that the account's pass starts; for a pass run again (which says nothing as it
    /// goes: the run's result has its outcome), the time records that may
    /// prove a move were made since (`AccountPass.beginAfresh`).
    mutating func started(_ index: Int) -> Date? {
        inFlight.insert(index)
        return queued.remove(index) == nil ? nil : since
    }

    /// Takes the result of the account's pass; true when it is the account's first, and the
    /// places of the accounts to queue again (those its adds ask to list again, or itself).
    mutating func ended(_ index: Int, _ result: Reconciler.Reconciled) -> (first: Bool, again: [Int]) {
        let asking = result.followUps.compactMap { places[$0] }
        inFlight.remove(index)
        let first = place[index] == nil
        if let earlier = place[index] {
            var result = result
            result.outcome = Self.outcome(results[earlier].outcome, then: result.outcome)
            results[earlier] = result
        } else {
            place[index] = results.count
            results.append(result)
        }
        var again: [Int] = []
        for other in asking where other != index {
            if inFlight.contains(other) {
                due.insert(other)
            } else if place[other] != nil, !queued.contains(other), mayRunAgain(other) {
                again.append(other)
            }
        }
        if due.remove(index) != nil, mayRunAgain(index) { again.append(index) }
        return (first, again)
    }

    /// Counts a run again of the account, if it has runs left, and queues it.
    private mutating func mayRunAgain(_ index: Int) -> Bool {
        guard times[index, default: 0] < Self.most else { return false }
        times[index, default: 0] += 1
        queued.insert(index)
        return true
    }

    /// An account's outcome once its pass ran again: the later pass's, with the requests and
    /// writes of both, and the earlier action where the later changed nothing; the earlier
    /// outcome where the later pass found nothing to ask.
    static func outcome(_ earlier: AccountOutcome, then later: AccountOutcome) -> AccountOutcome {
        guard later.requests > 0 || later.writes > 0 || later.action == .failed else { return earlier }
        var outcome = later
        outcome.requests += earlier.requests
        outcome.writes += earlier.writes
        if outcome.action == .unchanged { outcome.action = earlier.action }
        return outcome
    }
}
