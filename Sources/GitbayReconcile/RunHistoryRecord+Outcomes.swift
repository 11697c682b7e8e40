import GitbayState
import Synchronization

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension RunHistoryRecord {
    /// The row of a run that ended at `finishedAt` with `outcomes` (in sign-in order);
    /// `alsoFailed` names accounts that failed after their outcome (a removal not finished).
    init(start: Start, finishedAt: Date, _ outcomes: [AccountOutcome], interrupted: Bool, alsoFailed: Set<String> = []) {
        let failed = outcomes.filter { ($0.isFailure && !$0.stopped) || alsoFailed.contains($0.account) }.map(\.account)
        let unchecked = outcomes.filter { $0.unchecked != nil && !alsoFailed.contains($0.account) }.map(\.account)
        self.init(
            start: start, finishedAt: finishedAt,
            result: interrupted ? .interrupted : !failed.isEmpty ? .failed : unchecked.isEmpty ? .ok : .unchecked,
            accounts: outcomes.count, added: outcomes.filter { [.added, .reAdded, .rotated].contains($0.action) }.count,
            removed: outcomes.filter { $0.action == .removed }.count, failedAccounts: failed, uncheckedAccounts: unchecked)
    }
}

/// The history row a run has written so far, so that the run writes it again only when its
/// end says more than the row (`RunHistoryRecord.saysTheSame`).
final class RunHistoryNote: Sendable {
    private let written = Mutex<RunHistoryRecord?>(nil)

    var row: RunHistoryRecord? { written.withLock { $0 } }

    func note(_ row: RunHistoryRecord) { written.withLock { $0 = row } }
}
