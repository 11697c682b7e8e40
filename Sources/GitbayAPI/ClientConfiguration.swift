/// Settings for one `GitbayClient`: transport limits, the retry schedule and the connections
/// it shares with other clients.
package struct ClientConfiguration: Sendable {
    package var transport: TransportConfiguration
    package var retry: RetryPolicy
    /// Where the client's requests run and find open connections to its instance; clients given
    /// the same pool reuse each other's connections. Nil: the process's pool, started by the
    /// first client that needs it (so a command that makes no request never starts libcurl).
    package var connections: ConnectionPool?
    /// Returns a number in `0..<1` for retry jitter; replaceable so tests are repeatable.
    package var random: @Sendable () -> Double
    /// How long all of the client's requests may take together, retries and their waits
    /// included, counted from its first request: an attempt gets at most what is left, no
    /// retry starts past it, and no request is sent once it is over. Nil: no such limit.
    package var deadline: Duration?
    /// Consulted around every exchange; nil (always, outside tests) lets every exchange through.
    var gate: ExchangeGate?

    /// The default `deadline`: what a hung instance costs a run, where three request timeouts
    /// would cost three times as long.
    package static let defaultDeadline: Duration = .seconds(30)

    package init(
        transport: TransportConfiguration = .init(),
        retry: RetryPolicy = .init(),
        connections: ConnectionPool? = nil,
        random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) },
        deadline: Duration? = defaultDeadline
    ) {
        precondition(deadline.map { $0 > .zero } ?? true, "a deadline must be positive")
        self.deadline = deadline
        self.transport = transport
        self.retry = retry
        self.connections = connections
        self.random = random
    }
}
