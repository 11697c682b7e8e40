import GitbayAPI

/// A transport that asks, around each exchange, whether the process carries on: tests stop a
/// command at a chosen request the way a crash would, so nothing after that point is sent or
/// recorded.
package struct GatedTransport: HTTPTransport {
    package let inner: any HTTPTransport
    /// Asked before a request is sent; false fails it as cancelled, unsent.
    package let mayStart: @Sendable () -> Bool
    /// Asked once the server has answered; false drops the answer and fails as cancelled.
    package let mayFinish: @Sendable () -> Bool

    package init(_ inner: any HTTPTransport, mayStart: @escaping @Sendable () -> Bool, mayFinish: @escaping @Sendable () -> Bool) {
        self.inner = inner
        self.mayStart = mayStart
        self.mayFinish = mayFinish
    }

    package func send(_ request: HTTPRequest, limits: TransportConfiguration) async throws(TransportError) -> HTTPResponse {
        guard mayStart() else { throw .cancelled }
        let response = try await inner.send(request, limits: limits)
        guard mayFinish() else { throw .cancelled }
        return response
    }
}
