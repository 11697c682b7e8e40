import GitbayAPI
import GitbayState
import GitbaySupport
import Synchronization

/// How a run's accounts are carried out together. An account in flight is, most of the time,
/// a list waiting on its server, and in a steady run that list answers `304` and finishes the
/// pass: so every pass's first list is started with no task waiting for it, a `304` that
/// finishes the pass is taken where it arrives, and only a pass with more to do gets a task
/// (which reads the list's answer as its first attempt, `ListAhead`). A request in flight then
/// costs its transfer, not a task's frames.
extension Reconciler {
    /// What reaches the run's loop: a first list answered, a pass carried out by its task, or
    /// `options.stopNow` returning.
    private enum Arrival: Sendable {
        case listed(Int, ListAhead)
        case finished(Int, Reconciled)
        case stop
    }

    /// Reconciles the accounts, every instance at once, at most `options.bound(for:)` of one
    /// instance and `concurrency` in all at a time; the results in the order they ended.
    func reconcileConcurrently(
        _ accounts: [(AccountRecord, Desire)], facts: RunFacts, tokens apiTokens: [Int64: Secret], progress: Options.Listener?
    ) async -> [Reconciled] {
        let driver = PassDriver(store: store, options: options, logger: logger, tokens: tokens)
        let transfers = FirstLists()
        let arrivals = AsyncStream.makeStream(of: Arrival.self)
        return await withTaskCancellationHandler {
            await fanOut(accounts, facts: facts, tokens: apiTokens, driver: driver, transfers: transfers, arrivals: arrivals, progress: progress)
        } onCancel: {
            transfers.cancelAll()
        }
    }

    /// The run's loop: starts what fits, takes what arrives, until every account has ended.
    /// A stop cancels the passes in flight, each ending as a cancellation (which records
    /// nothing), and starts no other; once every account has ended, the group is cancelled to
    /// end the watcher of `stopNow`.
    private func fanOut(
        _ accounts: [(AccountRecord, Desire)], facts: RunFacts, tokens apiTokens: [Int64: Secret], driver: PassDriver, transfers: FirstLists,
        arrivals: (stream: AsyncStream<Arrival>, continuation: AsyncStream<Arrival>.Continuation), progress: Options.Listener?
    ) async -> [Reconciled] {
        var queue = RunQueue(accounts.indices.map { (accounts[$0].0.instance, $0) }, overall: options.concurrency, perInstance: options.bound(for:))
        let (stream, sink) = arrivals
        var (waiting, results, stopped): ([Int: PassDriver.Carrier], [Reconciled], Bool) = ([:], [], false)
        await withTaskGroup(of: Void.self) { group in
            func carryOut(_ index: Int, _ carrier: PassDriver.Carrier) {
                group.addTask { sink.yield(.finished(index, await driver.run(carrier))) }
            }
            func startWhatFits() {
                while !stopped, options.mayStartMore(), let (_, index) = queue.start() {
                    progress?(.started(accounts[index].0))
                    let carrier = driver.start(pass(accounts[index], facts), token: apiTokens[accounts[index].0.id])
                    guard let transfer = carrier.startFirstList({ sink.yield(.listed(index, $0)) }) else {
                        carryOut(index, carrier)
                        continue
                    }
                    waiting[index] = carrier
                    transfers.add(index, transfer)
                }
                if queue.running == 0 { sink.finish() }
            }
            watchStop(&group, sink, transfers)
            startWhatFits()
            for await arrival in stream {
                var (index, result): (Int, Reconciled?)
                switch arrival {
                case .stop:
                    stopped = true
                    group.cancelAll()
                    continue
                case .listed(let listed, let ahead):
                    transfers.remove(listed)
                    guard let carrier = waiting.removeValue(forKey: listed) else { preconditionFailure("an answer for no account") }
                    (index, result) = (listed, driver.finished(carrier, ahead: ahead))
                    if result == nil { carryOut(listed, carrier) }
                case .finished(let finished, let done): (index, result) = (finished, done)
                }
                guard let result else { continue }
                results.append(result)
                progress?(.finished(result.outcome))
                queue.finished(accounts[index].0.instance)
                startWhatFits()
            }
            group.cancelAll()
        }
        return results
    }

    /// Cancels the first lists in flight and tells the loop when `options.stopNow` returns
    /// (or the group is cancelled first).
    private func watchStop(_ group: inout TaskGroup<Void>, _ sink: AsyncStream<Arrival>.Continuation, _ transfers: FirstLists) {
        guard let stopNow = options.stopNow else { return }
        group.addTask {
            await stopNow()
            transfers.cancelAll()
            sink.yield(.stop)
        }
    }

    /// The account's first pass, planned from what the run read.
    private func pass(_ entry: (AccountRecord, Desire), _ facts: RunFacts) -> () -> AccountPass {
        let (account, desire) = entry
        let settings = AccountPass.Settings(backoffCeiling: options.backoffCeiling, now: options.now, doubtMark: facts.doubtMark)
        return {
            AccountPass(
                account: account, desire: desire, device: facts.device, status: facts.statuses[account.id] ?? AccountStatusRecord(),
                records: facts.registrations[account.id] ?? [], settings: settings)
        }
    }
}

/// The first lists in flight, for cancelling them when the run is cancelled: one started after
/// that is cancelled at once.
private final class FirstLists: Sendable {
    private let state = Mutex<(transfers: [Int: TransportTransfer], cancelled: Bool)>(([:], false))

    func add(_ index: Int, _ transfer: TransportTransfer) {
        let cancelled = state.withLock { state in
            if !state.cancelled { state.transfers[index] = transfer }
            return state.cancelled
        }
        if cancelled { transfer.cancel() }
    }

    func remove(_ index: Int) {
        _ = state.withLock { $0.transfers.removeValue(forKey: index) }
    }

    func cancelAll() {
        let transfers = state.withLock { state in
            state.cancelled = true
            return state.transfers.values
        }
        for transfer in transfers { transfer.cancel() }
    }
}
