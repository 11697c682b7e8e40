import Synchronization

/// What reaches a pool's loop, in the order it arrived: completions put arrivals in from any
/// thread, the loop alone takes them out. An `AsyncStream` did this before; its generic
/// buffer looked up type metadata and took a lock several times for every arrival, about
/// 7 K instructions per account of a steady run, where this costs one lock each way.
final class ArrivalQueue: Sendable {
    private struct State {
        var waiting: [PassPool.Arrival] = []
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
        state.head += 1
        if state.head == state.waiting.count {
            state.waiting.removeAll(keepingCapacity: true)
            state.head = 0
        }
        return arrival
    }
}
