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
    /// Consulted around every exchange; nil (always, outside tests) lets every exchange through.
    var gate: ExchangeGate?

    package init(
        transport: TransportConfiguration = .init(),
        retry: RetryPolicy = .init(),
        connections: ConnectionPool? = nil,
        random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }
    ) {
        self.transport = transport
        self.retry = retry
        self.connections = connections
        self.random = random
    }
}
