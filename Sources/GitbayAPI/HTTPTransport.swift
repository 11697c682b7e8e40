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
}
