import GitbayAPI
import GitbayState
import GitbaySupport

/// A round's passes, carried out together by one loop that owns them: it starts what the
/// bounds allow (`RunQueue`), hands each answer or store result to its pass as an event, and
/// carries out the step the pass returns. A request is started with a completion, so an
/// account waiting on its server costs its transfer and no task; a store step runs as a short
/// task of the round's group. What one account does never waits on another account's server.
///
/// A stop (`Options.stopNow`, or the round's task cancelled) cancels the requests in flight;
/// each pass then ends as a cancellation (which records nothing) and none is started after.
final class PassPool {
    /// What reaches the loop. Boxed: a pass's payloads are large, and an arrival is moved
    /// through the queue of arrivals and copied out again.
    indirect enum Arrival: Sendable {
        case event(Int, AccountPass.Event)
        /// An account read afresh, with the client and token for its next pass.
        case fresh(Int, AccountPass.Event, PassStore.Fresh?)
        /// An add that failed: the token's rows under other names are put in doubt first.
        case addFailed(Int, AccountPass, GitbayError)
        /// The account's pass ended, its doubts raised.
        case finished(Int, Reconciler.Reconciled)
        /// A step of the account's token renewal, after its pass.
        case renewal(Int, RenewalArrival)
        /// A step of the account's removal, after its pass.
        case removal(Int, RemovalArrival)
        case stop
    }

    /// What the loop keeps of an account in flight; only the loop touches it.
    final class InFlight {
        var pass: AccountPass
        var client: Result<GitbayClient, any Error>
        /// The API token the client sends.
        var token: Secret?
        let logger: Logger
        /// Requests of the clients of superseded passes.
        var spent = 0
        /// An add answered without its id, whose row is not recorded yet.
        var addUnsettled = false
        /// The store step in flight records a row.
        var recording = false
        /// The request in flight (the pass's, then its renewal's), to cancel on a stop.
        var transfer: TransportTransfer?
        /// The pass's result, held while the account's token is renewed after it.
        var held: Reconciler.Reconciled?
        /// The token renewal under way after the pass. Kept on the heap apart (some 470 bytes):
        /// a run holds a lane for every request in flight, and few lanes ever renew.
        var renewal: TokenRenewer.Renewal? {
            get { renewalHeld?.renewal }
            set {
                if let newValue, let renewalHeld {
                    renewalHeld.renewal = newValue
                } else {
                    renewalHeld = newValue.map(RenewalHeld.init)
                }
            }
        }
        private var renewalHeld: RenewalHeld?

        private final class RenewalHeld {
            var renewal: TokenRenewer.Renewal
            init(_ renewal: TokenRenewer.Renewal) { self.renewal = renewal }
        }

        init(pass: AccountPass, client: Result<GitbayClient, any Error>, token: Secret?, logger: Logger) {
            (self.pass, self.client, self.token, self.logger) = (pass, client, token, logger)
        }
    }

    let store: PassStore
    let accounts: [(AccountRecord, Desire)]
    let facts: RunFacts
    let apiTokens: [Int64: Secret]
    let progress: Reconciler.Options.Listener?
    /// The accounts whose token is renewed after their pass, and the install marker.
    let renewing: (accounts: Set<Int64>, marker: String)?
    /// The accounts being signed out, whose removal follows their pass.
    let removals: RunRemovals?
    /// The removing accounts the round left alone, whose removal is their only machine: lane
    /// `accounts.count + k` is the removal of `leftAlone[k]`.
    let leftAlone: [Reconciler.Reconciled]
    var queue: RunQueue<Int>
    /// Each lane's pass in flight, by lane; nil where none is. An array, not a
    /// dictionary: every event looks its lane up, and the lanes are numbered from 0.
    var inFlight: [InFlight?]
    /// The removals under way.
    var removing: [Int: RemovalLane] = [:]
    var results: [Reconciler.Reconciled] = []
    var stopped = false
    let arrivals = ArrivalQueue()

    init(
        _ accounts: [(AccountRecord, Desire)], facts: RunFacts, tokens: [Int64: Secret], store: PassStore,
        renewing: (accounts: Set<Int64>, marker: String)? = nil, removals: RunRemovals? = nil, leftAlone: [AccountOutcome] = [],
        progress: Reconciler.Options.Listener?
    ) {
        self.accounts = accounts
        self.removals = removals
        self.leftAlone = leftAlone.map { Reconciler.Reconciled(outcome: $0) }
        self.facts = facts
        apiTokens = tokens
        self.store = store
        self.progress = progress
        self.renewing = renewing
        let options = store.options
        let lanes = accounts.indices.map { (accounts[$0].0.instance, $0) } + leftAlone.indices.map { (leftAlone[$0].instance, accounts.count + $0) }
        queue = RunQueue(lanes, overall: options.concurrency, perInstance: options.bound(for:))
        inFlight = Array(repeating: nil, count: lanes.count)
    }

    /// Carries every account out; the results in the order they ended.
    func run() async -> [Reconciler.Reconciled] {
        let sink = arrivals
        let watcher = store.options.stopNow.map { stopNow in
            Task {
                await stopNow()
                sink.yield(.stop)
            }
        }
        await withTaskCancellationHandler {
            await withTaskGroup(of: Void.self) { group in
                startWhatFits(&group)
                while let arrival = await arrivals.next() {
                    take(arrival, &group)
                }
            }
        } onCancel: {
            sink.yield(.stop)
        }
        watcher?.cancel()
        // The removals a stop kept from starting: left alone, as the round found them.
        let ended = Set(results.map(\.outcome.accountID))
        for left in leftAlone where !ended.contains(left.outcome.accountID) {
            results.append(left)
            progress?(.finished(left.outcome))
        }
        return results
    }

    private func take(_ arrival: Arrival, _ group: inout TaskGroup<Void>) {
        switch arrival {
        case .stop:
            guard !stopped else { return }
            stopped = true
            for case let lane? in inFlight { lane.transfer?.cancel() }
            for lane in removing.values { lane.transfer?.cancel() }
            if queue.running == 0 { arrivals.finish() }
        case .event(let index, let event):
            if let lane = inFlight[index] {
                switch event {
                case .added(let id): lane.addUnsettled = id == nil
                case .stored where lane.recording: lane.addUnsettled = false
                default: break
                }
                (lane.transfer, lane.recording) = (nil, false)
            }
            handle(event, of: index, &group)
        case .addFailed(let index, let pass, let error):
            let (store, sink) = (store, arrivals)
            group.addTask {
                await store.doubtOtherNames(after: pass)
                sink.yield(.event(index, .failed(.server(error))))
            }
        case .finished(let index, let result):
            finish(result, of: index, unsettled: nil, &group)
        case .renewal(let index, let arrival):
            take(arrival, of: index, &group)
        case .removal(let index, let arrival):
            take(arrival, ofRemoval: index, &group)
        case .fresh(let index, let event, let fresh):
            if let fresh, let lane = inFlight[index] {
                lane.spent += (try? lane.client.get())?.requestCount ?? 0
                (lane.client, lane.token) = (fresh.client, fresh.token)
            }
            handle(event, of: index, &group)
        }
    }

    /// Starts the accounts the bounds allow, each with its first step.
    func startWhatFits(_ group: inout TaskGroup<Void>) {
        while !stopped, store.options.mayStartMore(), let (_, index) = queue.start() {
            guard index < accounts.count else {
                let left = leftAlone[index - accounts.count]
                guard let removals, let account = removals.removing[left.outcome.accountID] else { preconditionFailure("no removal left alone") }
                remove(account, after: left, of: index, &group)
                continue
            }
            let (account, desire) = accounts[index]
            progress?(.started(account))
            let token = apiTokens[account.id]
            // The pass begins where the lane keeps it: a pass copied in costs a reference for each of its strings.
            let lane = InFlight(
                pass: AccountPass(
                    account: account, desire: desire, device: facts.device, status: facts.statuses[account.id] ?? AccountStatusRecord(),
                    records: facts.registrations[account.id] ?? [], settings: store.settings(doubtMark: facts.doubtMark)),
                client: Result { try store.makeClient(account, token: token) }, token: token,
                logger: store.logger.with(["account.name": account.name]))
            inFlight[index] = lane
            carryOut(lane.pass.begin(at: store.options.now()), of: index, &group)
        }
        if queue.running == 0 { arrivals.finish() }
    }

    /// Hands `event` to the account's pass and carries out the step it returns.
    func handle(_ event: AccountPass.Event, of index: Int, _ group: inout TaskGroup<Void>) {
        guard let lane = inFlight[index] else { preconditionFailure("an event for no account in flight") }
        carryOut(lane.pass.handle(event, at: store.options.now()), of: index, &group)
    }
}
