/// One account's two rate limits: the API limiter's buckets and the dispatcher's write limit.
struct AccountLimits: Sendable {
    /// The dispatcher's limit, shared by SSH, web and API: a burst of 60, refilled at 1 a second.
    static let writesPerMinute = 60

    private var reads: TokenBucket
    private var writes: TokenBucket
    private var dispatcherWrites: TokenBucket

    init(now: ContinuousClock.Instant) {
        reads = TokenBucket(capacity: 120, refillPerSecond: 2, now: now)
        writes = TokenBucket(capacity: 12, refillPerSecond: 0.2, now: now)
        dispatcherWrites = TokenBucket(
            capacity: Double(Self.writesPerMinute), refillPerSecond: Double(Self.writesPerMinute) / 60, now: now)
    }

    /// Admits one request through the API limiter, or says how many whole seconds to wait.
    /// A write draws from both buckets, and from neither when either is empty.
    mutating func admit(isWrite: Bool, at now: ContinuousClock.Instant) -> Int? {
        var wait = reads.wait(at: now)
        if isWrite { wait = max(wait, writes.wait(at: now)) }
        guard wait == .zero else { return Self.wholeSeconds(wait) }
        reads.take()
        if isWrite { writes.take() }
        return nil
    }

    /// Spends one of the dispatcher's writes, or says how long to wait as gitbay words it:
    /// `(1 - tokens) / rate + 1s`, rounded to the nearest second (halves away from zero, as
    /// Go's `Duration.Round` does).
    mutating func admitWrite(at now: ContinuousClock.Instant) -> Duration? {
        let tokens = dispatcherWrites.level(at: now)
        guard tokens < 1 else {
            dispatcherWrites.take()
            return nil
        }
        let seconds = (1 - tokens) / dispatcherWrites.refillPerSecond + 1
        return .seconds(Int64(seconds.rounded(.toNearestOrAwayFromZero)))
    }

    /// Spends up to `count` of the dispatcher's writes at once, as writes over SSH or the web
    /// do; the bucket never goes below empty.
    mutating func spendWrites(_ count: Int, at now: ContinuousClock.Instant) {
        for _ in 0..<count where dispatcherWrites.level(at: now) >= 1 {
            dispatcherWrites.take()
        }
    }

    private static func wholeSeconds(_ duration: Duration) -> Int {
        let (seconds, attoseconds) = duration.components
        return max(1, Int(seconds) + (attoseconds > 0 ? 1 : 0))
    }
}
