/// Limits for one HTTP transport: how long to wait and how much to accept.
package struct TransportConfiguration: Sendable, Equatable {
    /// How long connecting (TCP and TLS) may take.
    package var connectTimeout: Duration
    /// How long a whole request may take, connecting included.
    package var requestTimeout: Duration
    /// The largest response body accepted; a larger one aborts the transfer.
    package var maxResponseBytes: Int

    package init(
        connectTimeout: Duration = .seconds(10),
        requestTimeout: Duration = .seconds(30),
        maxResponseBytes: Int = 1 << 20
    ) {
        precondition(connectTimeout > .zero && requestTimeout > .zero, "timeouts must be positive")
        precondition(maxResponseBytes > 0, "maxResponseBytes must be positive")
        self.connectTimeout = connectTimeout
        self.requestTimeout = requestTimeout
        self.maxResponseBytes = maxResponseBytes
    }
}
