/// Settings for one `GitbayClient`: transport limits and the retry schedule.
package struct ClientConfiguration: Sendable {
    package var transport: TransportConfiguration
    package var retry: RetryPolicy
    /// Returns a number in `0..<1` for retry jitter; replaceable so tests are repeatable.
    package var random: @Sendable () -> Double
    /// Consulted around every exchange; nil (always, outside tests) lets every exchange through.
    var gate: ExchangeGate?

    package init(
        transport: TransportConfiguration = .init(),
        retry: RetryPolicy = .init(),
        random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }
    ) {
        self.transport = transport
        self.retry = retry
        self.random = random
    }
}
