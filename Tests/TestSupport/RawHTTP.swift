import Foundation

#if canImport(Darwin)
import Darwin
#else
import Glibc
#endif

/// A deliberately tiny HTTP/1.1 client over a raw socket, so tests of the fake server see
/// exactly what went over the wire (no URLSession, no retries, no redirects, no caching).
package final class RawHTTP {
    /// One response as received.
    package struct Response {
        package let status: Int
        /// Names lower-cased.
        package let headers: [String: String]
        package let body: [UInt8]

        package var text: String { String(decoding: body, as: UTF8.self) }

        /// The body as a JSON object, nil when it is not one.
        package var json: [String: Any]? {
            (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any]
        }

        package var exitCode: Int? { json?["exit_code"] as? Int }
        package var error: String? { json?["error"] as? String }
        package var data: Any? { json?["data"] }
        package var dataObject: [String: Any]? { data as? [String: Any] }
        package var dataArray: [[String: Any]]? { data as? [[String: Any]] }
    }

    /// Why no response came back.
    package enum Failure: Error, Equatable {
        case connect(Int32)
        /// The server closed the connection before a complete response.
        case closedWithoutReply
        /// The server reset the connection.
        case reset
        /// Nothing arrived within the timeout.
        case timedOut
        case malformed(String)
    }

    private let socket: Int32
    private var buffer: [UInt8] = []

    /// Connects to 127.0.0.1:`port`; every later read gives up after `timeout`.
    package init(port: UInt16, timeout: Duration = .seconds(5)) throws(Failure) {
        #if canImport(Darwin)
        socket = Darwin.socket(AF_INET, SOCK_STREAM, 0)
        #else
        socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #endif
        guard socket >= 0 else { throw .connect(errno) }
        let (seconds, attoseconds) = timeout.components
        var limit = timeval(tv_sec: Int(seconds), tv_usec: .init(attoseconds / 1_000_000_000_000))
        _ = setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        #if canImport(Darwin)
        var yes: Int32 = 1
        _ = setsockopt(socket, SOL_SOCKET, SO_NOSIGPIPE, &yes, socklen_t(MemoryLayout<Int32>.size))
        #endif
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr = in_addr(s_addr: UInt32(0x7F00_0001).bigEndian)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        // No close here: a class whose init throws once every property is set is deinitialised,
        // and `deinit` closes the socket. Closing it here too would close whatever descriptor
        // took its number meanwhile: another test's socket or pipe.
        guard connected == 0 else { throw .connect(errno) }
    }

    deinit {
        if socket >= 0 { close(socket) }
    }

    /// Sends one request on this connection and reads one response (skipping `100 Continue`).
    package func send(
        _ method: String, _ target: String, headers: [(String, String)] = [], body: [UInt8] = []
    ) throws(Failure) -> Response {
        var head = "\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        if !body.isEmpty || method == "POST" { head += "Content-Length: \(body.count)\r\n" }
        head += "\r\n"
        try write(Array(head.utf8) + body)
        while true {
            let response = try readResponse()
            if response.status != 100 { return response }
        }
    }

    /// Writes raw bytes (for sending a head and a body separately).
    package func write(_ bytes: [UInt8]) throws(Failure) {
        #if canImport(Darwin)
        let flags: Int32 = 0
        #else
        let flags = Int32(MSG_NOSIGNAL)
        #endif
        var offset = 0
        while offset < bytes.count {
            let count = bytes.withUnsafeBytes { sendBytes(socket, $0.baseAddress! + offset, bytes.count - offset, flags) }
            guard count > 0 else { throw errno == ECONNRESET ? .reset : .closedWithoutReply }
            offset += count
        }
    }

    /// Reads one response from the connection.
    package func readResponse() throws(Failure) -> Response {
        var end = Self.endOfHead(in: buffer)
        while end == nil {
            try fill()
            end = Self.endOfHead(in: buffer)
        }
        guard let end else { throw .malformed("no head") }
        let lines = String(decoding: buffer[..<end], as: UTF8.self).components(separatedBy: "\r\n")
        buffer.removeFirst(end + 4)
        let statusLine = lines[0].split(separator: " ", maxSplits: 2)
        guard statusLine.count >= 2, statusLine[0].hasPrefix("HTTP/1."), let status = Int(statusLine[1]) else {
            throw .malformed(lines[0])
        }
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { throw .malformed(line) }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        guard status != 100 else { return Response(status: status, headers: headers, body: []) }
        guard let length = headers["content-length"].flatMap(Int.init) else { throw .malformed("no Content-Length") }
        while buffer.count < length { try fill() }
        let body = Array(buffer.prefix(length))
        buffer.removeFirst(length)
        return Response(status: status, headers: headers, body: body)
    }

    private func fill() throws(Failure) {
        var chunk = [UInt8](repeating: 0, count: 65536)
        let count = chunk.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
        if count > 0 {
            buffer.append(contentsOf: chunk.prefix(count))
            return
        }
        if count == 0 { throw .closedWithoutReply }
        switch errno {
        case EAGAIN, EWOULDBLOCK: throw .timedOut
        case ECONNRESET: throw .reset
        default: throw .closedWithoutReply
        }
    }

    private func sendBytes(_ socket: Int32, _ bytes: UnsafeRawPointer, _ count: Int, _ flags: Int32) -> Int {
        #if canImport(Darwin)
        Darwin.send(socket, bytes, count, flags)
        #else
        Glibc.send(socket, bytes, count, flags)
        #endif
    }

    private static func endOfHead(in bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        return (0...(bytes.count - 4)).first {
            bytes[$0] == 13 && bytes[$0 + 1] == 10 && bytes[$0 + 2] == 13 && bytes[$0 + 3] == 10
        }
    }
}

extension RawHTTP {
    /// `POST /api/v1/cmd` on a fresh connection.
    package static func command(
        _ port: UInt16, token: String?, _ argv: [String], stdin: String? = nil
    ) throws(Failure) -> Response {
        try RawHTTP(port: port).send("POST", "/api/v1/cmd", headers: authorization(token), body: commandBody(argv, stdin: stdin))
    }

    /// `GET /api/v1/read?argv=...` on a fresh connection.
    package static func read(
        _ port: UInt16, token: String?, _ argv: [String], headers: [(String, String)] = []
    ) throws(Failure) -> Response {
        try RawHTTP(port: port).send("GET", readTarget(argv), headers: authorization(token) + headers)
    }

    package static func authorization(_ token: String?) -> [(String, String)] {
        token.map { [("Authorization", "Bearer \($0)")] } ?? []
    }

    package static func commandBody(_ argv: [String], stdin: String? = nil) -> [UInt8] {
        var object: [String: Any] = ["argv": argv]
        if let stdin { object["stdin"] = stdin }
        return Array((try? JSONSerialization.data(withJSONObject: object)) ?? Data())
    }

    package static func readTarget(_ argv: [String]) -> String {
        let allowed = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-._~"))
        let query = argv.map { "argv=" + ($0.addingPercentEncoding(withAllowedCharacters: allowed) ?? $0) }
        return "/api/v1/read?" + query.joined(separator: "&")
    }
}
