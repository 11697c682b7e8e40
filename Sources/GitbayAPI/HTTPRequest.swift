/// One HTTP request as a client hands it to its `HTTPTransport`.
package struct HTTPRequest: Sendable {
    /// `GET` or `POST` (any other token is sent as a custom method).
    package var method: String
    /// The absolute URL; `https`, or plain `http` to a loopback host only.
    package var url: String
    /// Header fields in the order they are sent. `Expect` and `User-Agent` are set by the transport.
    package var headers: [(name: String, value: String)]
    /// The request body; nil sends none.
    package var body: [UInt8]?

    package init(method: String, url: String, headers: [(name: String, value: String)] = [], body: [UInt8]? = nil) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
    }
}
