/// One account's two rate limits: the API limiter's buckets and the dispatcher's write window.
struct AccountLimits: Sendable {
    /// The dispatcher's limit, shared by SSH, web and API.
    static let writesPerMinute = 60

    private var reads: TokenBucket
    private var writes: TokenBucket
    private var recentWrites: [ContinuousClock.Instant] = []

    init(now: ContinuousClock.Instant) {
        reads = TokenBucket(capacity: 120, refillPerSecond: 2, now: now)
        writes = TokenBucket(capacity: 12, refillPerSecond: 0.2, now: now)
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

    /// Counts one write in the dispatcher's sliding minute, or says how long to wait.
    mutating func admitWrite(at now: ContinuousClock.Instant) -> Int? {
        recentWrites.removeAll { now - $0 >= .seconds(60) }
        guard recentWrites.count >= Self.writesPerMinute, let oldest = recentWrites.first else {
            recentWrites.append(now)
            return nil
        }
        return Self.wholeSeconds(oldest + .seconds(60) - now)
    }

    private static func wholeSeconds(_ duration: Duration) -> Int {
        let (seconds, attoseconds) = duration.components
        return max(1, Int(seconds) + (attoseconds > 0 ? 1 : 0))
    }
}
