/// Settings for one `GitbayClient`: how its requests travel, their limits and the retry
/// schedule.
package struct ClientConfiguration: Sendable {
    package var transport: TransportConfiguration
    package var retry: RetryPolicy
    /// What sends the client's requests; clients given the same one may share its connections
    /// to their instance.
    package var http: any HTTPTransport
    /// Returns a number in `0..<1` for retry jitter; replaceable so tests are repeatable.
    package var random: @Sendable () -> Double
    /// How long all of the client's requests may take together, retries and their waits
    /// included, counted from its first request: an attempt gets at most what is left, no
    /// retry starts past it, and no request is sent once it is over. Nil: no such limit.
    package var deadline: Duration?

    /// The default `deadline`: what a hung instance costs a run, where three request timeouts
    /// would cost three times as long.
    package static let defaultDeadline: Duration = .seconds(30)

    package init(
        transport: TransportConfiguration = .init(),
        retry: RetryPolicy = .init(),
        http: any HTTPTransport,
        random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) },
        deadline: Duration? = defaultDeadline
    ) {
        precondition(deadline.map { $0 > .zero } ?? true, "a deadline must be positive")
        self.deadline = deadline
        self.transport = transport
        self.retry = retry
        self.http = http
        self.random = random
    }
}

/// A configuration several clients hold at once: the clients of one run share one.
package final class SharedClientConfiguration: Sendable {
    package let configuration: ClientConfiguration

    package init(_ configuration: ClientConfiguration) {
        self.configuration = configuration
    }
}
