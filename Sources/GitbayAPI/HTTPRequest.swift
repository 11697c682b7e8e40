/// One HTTP request as a client hands it to its `HTTPTransport`.
public struct HTTPRequest: Sendable {
    /// `GET` or `POST` (any other token is sent as a custom method).
    public var method: String
    /// The absolute URL; `https`, or plain `http` to a loopback host only.
    public var url: String
    /// Header fields in the order they are sent. `Expect` and `User-Agent` are set by the transport.
    public var headers: [(name: String, value: String)]
    /// The request body; nil sends none.
    public var body: [UInt8]?

    public init(method: String, url: String, headers: [(name: String, value: String)] = [], body: [UInt8]? = nil) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
    }

    /// Refuses a header field whose name or value could break the request apart (a line break,
    /// a control character, a colon in the name), before a byte is sent.
    public func checkHeaders() throws(TransportError) {
        if headers.contains(where: { !Self.isSafeHeader(name: $0.name, value: $0.value) }) {
            throw .invalidRequest(reason: "a header field contains a line break or control character")
        }
    }

    /// A header is sent only when neither its name nor its value could break the request apart.
    static func isSafeHeader(name: String, value: String) -> Bool {
        !name.isEmpty
            && allBytes(of: name) { $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: ":") }
            && allBytes(of: value) { $0 == UInt8(ascii: "\t") || ($0 >= 0x20 && $0 != 0x7F) }
    }

    /// Whether every UTF-8 byte of `text` passes `test`, read from the string's own storage
    /// where it has one (a byte at a time through the view costs several times more).
    private static func allBytes(of text: String, pass test: (UInt8) -> Bool) -> Bool {
        text.utf8.withContiguousStorageIfAvailable { $0.allSatisfy(test) } ?? text.utf8.allSatisfy(test)
    }
}
