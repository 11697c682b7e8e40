/// A token bucket as gitbay's limiters use: `capacity` requests at once, refilled steadily.
struct TokenBucket: Sendable {
    let capacity: Double
    let refillPerSecond: Double
    private var tokens: Double
    private var updated: ContinuousClock.Instant

    init(capacity: Double, refillPerSecond: Double, now: ContinuousClock.Instant) {
        self.capacity = capacity
        self.refillPerSecond = refillPerSecond
        self.tokens = capacity
        self.updated = now
    }

    /// How long until one token is available at `now` (zero if one is there already).
    mutating func wait(at now: ContinuousClock.Instant) -> Duration {
        refill(at: now)
        guard tokens < 1 else { return .zero }
        return .milliseconds(Int64(((1 - tokens) / refillPerSecond * 1000).rounded(.up)))
    }

    /// How many tokens the bucket holds at `now`, fractions included.
    mutating func level(at now: ContinuousClock.Instant) -> Double {
        refill(at: now)
        return tokens
    }

    /// Spends one token; call only after `wait(at:)` answered zero or `level(at:)` at least 1.
    mutating func take() {
        tokens -= 1
    }

    private mutating func refill(at now: ContinuousClock.Instant) {
        let elapsed = now - updated
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        tokens = min(capacity, tokens + seconds * refillPerSecond)
        updated = now
    }
}
