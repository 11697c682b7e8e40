/// One HTTP request as `CurlTransport` sends it.
struct HTTPRequest: Sendable {
    /// `GET` or `POST` (any other token is sent as a custom method).
    var method: String
    /// The absolute URL; `https`, or plain `http` to a loopback host only.
    var url: String
    /// Header fields in the order they are sent. `Expect` and `User-Agent` are set by the transport.
    var headers: [(name: String, value: String)]
    /// The request body; nil sends none.
    var body: [UInt8]?

    init(method: String, url: String, headers: [(name: String, value: String)] = [], body: [UInt8]? = nil) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
    }
}
