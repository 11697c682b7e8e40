/// One HTTP response, always sent with `Content-Length`.
struct HTTPResponse: Sendable {
    var status: Int
    /// Extra headers in sending order; `Content-Length` and `Connection` are added on the wire.
    var headers: [(name: String, value: String)]
    var body: [UInt8]

    init(status: Int, headers: [(name: String, value: String)] = [], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The bytes to write; `closing` adds `Connection: close`.
    func serialized(closing: Bool) -> [UInt8] {
        var head = "HTTP/1.1 \(status) \(Self.reason(for: status))\r\n"
        for header in headers {
            head += "\(header.name): \(header.value)\r\n"
        }
        head += "Content-Length: \(body.count)\r\n"
        if closing { head += "Connection: close\r\n" }
        head += "\r\n"
        return Array(head.utf8) + body
    }

    static func reason(for status: Int) -> String {
        switch status {
        case 200: "OK"
        case 304: "Not Modified"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 413: "Payload Too Large"
        case 429: "Too Many Requests"
        case 500: "Internal Server Error"
        case 502: "Bad Gateway"
        case 503: "Service Unavailable"
        case 504: "Gateway Timeout"
        default: "Status \(status)"
        }
    }
}
