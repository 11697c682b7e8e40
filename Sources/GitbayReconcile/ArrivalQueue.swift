import Synchronization

/// What reaches a pool's loop, in the order it arrived: completions put arrivals in from any
/// thread, the loop alone takes them out, one lock each way. (An `AsyncStream`'s generic
/// buffer looked up type metadata and locked several times per arrival: a steady run cost
/// 13 K instructions more per account with it.)
final class ArrivalQueue: Sendable {
    private struct State {
        /// Arrivals not taken yet from `head` on; a slot taken is emptied at once, so that
        /// its payload goes as soon as the loop is done with it.
        var waiting: [PassPool.Arrival?] = []
        /// Where the next arrival to take is in `waiting`.
        var head = 0
        /// The loop, suspended until something arrives.
        var taker: UnsafeContinuation<PassPool.Arrival?, Never>?
        var finished = false
    }

    private let state = Mutex(State())

    /// Adds `arrival`, or drops it once the queue is finished.
    func yield(_ arrival: PassPool.Arrival) {
        let taker = state.withLock { state -> UnsafeContinuation<PassPool.Arrival?, Never>? in
            guard !state.finished else { return nil }
            guard let taker = state.taker else {
                state.waiting.append(arrival)
                return nil
            }
            state.taker = nil
            return taker
        }
        taker?.resume(returning: arrival)
    }

    /// Ends the queue: what is waiting is still taken, then `next()` returns nil.
    func finish() {
        let taker = state.withLock { state -> UnsafeContinuation<PassPool.Arrival?, Never>? in
            state.finished = true
            defer { state.taker = nil }
            return state.waiting.count > state.head ? nil : state.taker
        }
        taker?.resume(returning: nil)
    }

    /// The next arrival, waiting for one; nil once the queue is finished and empty. One
    /// caller at a time.
    func next() async -> PassPool.Arrival? {
        if let ready = state.withLock({ Self.take(&$0) }) { return ready }
        return await withUnsafeContinuation { taker in
            let ready = state.withLock { state -> PassPool.Arrival?? in
                if let arrival = Self.take(&state) { return .some(arrival) }
                if state.finished { return .some(nil) }
                precondition(state.taker == nil, "two takers of one arrival queue")
                state.taker = taker
                return nil
            }
            if let ready { taker.resume(returning: ready) }
        }
    }

    private static func take(_ state: inout State) -> PassPool.Arrival? {
        guard state.head < state.waiting.count else { return nil }
        let arrival = state.waiting[state.head]
        state.waiting[state.head] = nil
        state.head += 1
        if state.head == state.waiting.count {
            state.waiting.removeAll(keepingCapacity: true)
            state.head = 0
        } else if state.head >= 64, state.head * 2 >= state.waiting.count {
            // Arrivals keep coming as fast as they are taken: the emptied front goes, so that
            // the array stays as long as what waits, not as all that ever arrived.
            state.waiting.removeFirst(state.head)
            state.head = 0
        }
        return arrival
    }
}
