/// How a client's requests reach a server: one HTTP exchange at a time, the first answer (a
/// redirect is never followed) or a typed failure, the task's cancellation honoured.
///
/// The agent speaks libcurl (`GitbayCurl.CurlTransport`); an app can speak URLSession; tests
/// speak to the fake server in memory. A transport carries no credentials of its own: every
/// request brings its account's token in its headers, and never reaches another instance.
public protocol HTTPTransport: Sendable {
    /// Sends `request` within `limits` (its timeouts, the largest body taken, the header
    /// fields kept in the answer) and returns the answer, whatever its status.
    func send(_ request: HTTPRequest, limits: TransportConfiguration) async throws(TransportError) -> HTTPResponse

    /// Starts sending `request` as `send` does and returns at once; `completion` is called once
    /// with the answer or the failure, on a thread of the transport's choosing. Cancelling the
    /// returned transfer ends it with `.cancelled` if it has not ended yet.
    ///
    /// A run starts every account's first request this way, so that no task waits for it. The
    /// default sends it from a task of its own.
    func start(
        _ request: HTTPRequest, limits: TransportConfiguration,
        completion: @escaping @Sendable (Result<HTTPResponse, TransportError>) -> Void
    ) -> TransportTransfer
}

extension HTTPTransport {
    public func start(
        _ request: HTTPRequest, limits: TransportConfiguration,
        completion: @escaping @Sendable (Result<HTTPResponse, TransportError>) -> Void
    ) -> TransportTransfer {
        let task = Task {
            do throws(TransportError) {
                completion(.success(try await send(request, limits: limits)))
            } catch {
                completion(.failure(error))
            }
        }
        return TransportTransfer { task.cancel() }
    }
}

/// A request started with `HTTPTransport.start`, which can be cancelled.
public struct TransportTransfer: Sendable {
    private let onCancel: @Sendable () -> Void

    /// A transfer that `cancel` stops by calling `onCancel`.
    public init(onCancel: @escaping @Sendable () -> Void) {
        self.onCancel = onCancel
    }

    /// Ends the transfer with `.cancelled`, unless it has already ended.
    public func cancel() {
        onCancel()
    }
}
