import Foundation

/// Reads HTTP/1.x requests from one client socket and writes the answers, on one thread.
///
/// Every wait also watches the server's wake descriptor, so stopping the server ends a read,
/// a latency pause or a deliberate hang at once.
struct HTTPConnection {
    /// What reading the next request produced.
    enum Next {
        case request(HTTPRequest)
        /// The client closed the connection, or the server is stopping.
        case closed
        /// Not HTTP this server understands; answer 400 and close.
        case malformed(String)
    }

    /// Gitbay refuses command bodies over 1 MiB.
    static let bodyLimit = 1 << 20
    private static let headLimit = 64 * 1024
    /// The most of an over-limit body read and dropped before answering it.
    private static let drainLimit = 16 << 20

    let socket: Int32
    private let wake: Int32
    private var buffer: [UInt8] = []

    init(socket: Int32, wake: Int32) {
        self.socket = socket
        self.wake = wake
    }

    /// Why reading a request ended without one.
    private enum Stop: Error {
        case closed
        case malformed(String)
    }

    /// A request's line and header fields, before its body.
    private struct Head {
        let method: String
        let target: String
        let version: String
        let headers: [String: String]
        /// The declared body length; 0 when none was declared.
        let length: Int

        var expectsContinue: Bool { headers["expect"]?.lowercased() == "100-continue" }

        func request(body: [UInt8], exceededLimit: Bool) -> HTTPRequest {
            HTTPRequest(
                method: method, target: target, version: version, headers: headers, body: body,
                bodyExceededLimit: exceededLimit)
        }
    }

    /// Reads the next request, answering `Expect: 100-continue` before reading its body.
    mutating func next() -> Next {
        do throws(Stop) {
            let head = try Self.parse(try readHead())
            if head.length > Self.bodyLimit {
                // A client that asked to continue is simply told no. One that already sends the
                // body has it read and dropped (within reason) so it gets to read the answer
                // instead of a reset.
                if !head.expectsContinue && head.length <= Self.drainLimit { try dropBody(head.length) }
                return .request(head.request(body: [], exceededLimit: true))
            }
            if head.length > buffer.count, head.expectsContinue {
                guard PosixSocket.sendAll(socket, Array("HTTP/1.1 100 Continue\r\n\r\n".utf8)) else { throw .closed }
            }
            while buffer.count < head.length {
                guard fill() else { throw .closed }
            }
            let body = Array(buffer.prefix(head.length))
            buffer.removeFirst(head.length)
            return .request(head.request(body: body, exceededLimit: false))
        } catch {
            switch error {
            case .closed: return .closed
            case .malformed(let reason): return .malformed(reason)
            }
        }
    }

    /// Reads up to the blank line that ends a request head and returns the head's text.
    private mutating func readHead() throws(Stop) -> String {
        var headEnd = Self.endOfHead(in: buffer)
        while headEnd == nil {
            guard buffer.count <= Self.headLimit else { throw .malformed("request head too large") }
            guard fill() else { throw .closed }
            headEnd = Self.endOfHead(in: buffer)
        }
        guard let headEnd else { throw .closed }
        let head = String(decoding: buffer[..<headEnd], as: UTF8.self)
        buffer.removeFirst(headEnd + 4)
        return head
    }

    /// The request line and header fields of `head`.
    private static func parse(_ head: String) throws(Stop) -> Head {
        var lines = head.components(separatedBy: "\r\n")
        let requestLine = lines.removeFirst().split(separator: " ", omittingEmptySubsequences: true)
        guard requestLine.count == 3, requestLine[2].hasPrefix("HTTP/1.") else {
            throw .malformed("malformed request line")
        }
        var headers: [String: String] = [:]
        for line in lines where !line.isEmpty {
            guard let colon = line.firstIndex(of: ":") else { throw .malformed("malformed header line") }
            let name = line[..<colon].trimmingCharacters(in: .whitespaces).lowercased()
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            headers[name] = headers[name].map { "\($0), \(value)" } ?? value
        }
        if headers["transfer-encoding"] != nil {
            // libcurl sends a Content-Length for a body it holds in memory; chunked uploads
            // are not something a gitbay client does.
            throw .malformed("chunked request bodies are not supported")
        }
        var length = 0
        if let declared = headers["content-length"] {
            guard let value = Int(declared), value >= 0 else { throw .malformed("bad Content-Length") }
            length = value
        }
        return Head(
            method: String(requestLine[0]), target: String(requestLine[1]), version: String(requestLine[2]),
            headers: headers, length: length)
    }

    /// Reads and drops `count` bytes of body.
    private mutating func dropBody(_ count: Int) throws(Stop) {
        var remaining = count
        while remaining > 0 {
            if buffer.isEmpty { guard fill() else { throw .closed } }
            let dropped = min(remaining, buffer.count)
            buffer.removeFirst(dropped)
            remaining -= dropped
        }
    }

    /// Sends a response; false if the client is gone.
    func send(_ response: HTTPResponse, closing: Bool) -> Bool {
        PosixSocket.sendAll(socket, response.serialized(closing: closing))
    }

    /// Waits `duration` before answering; false if the server started stopping meanwhile.
    func pause(for duration: Duration) -> Bool {
        let (seconds, attoseconds) = duration.components
        let milliseconds = seconds * 1000 + attoseconds / 1_000_000_000_000_000
        guard milliseconds > 0 else { return true }
        return PosixSocket.waitReadable([wake], milliseconds: Int32(clamping: milliseconds)) == nil
    }

    /// Holds the connection without answering until the client leaves, the server stops or
    /// ten minutes pass. Whatever the client sends meanwhile is read and dropped.
    func hold() {
        let deadline = ContinuousClock.now + .seconds(600)
        while ContinuousClock.now < deadline {
            guard let ready = PosixSocket.waitReadable([wake, socket], milliseconds: 1000) else { continue }
            if ready[0] { return }
            if ready[1], PosixSocket.receive(socket) == nil { return }
        }
    }

    /// Appends whatever the client sends next; false at end of stream or when stopping.
    private mutating func fill() -> Bool {
        guard let ready = PosixSocket.waitReadable([wake, socket], milliseconds: -1), !ready[0] else {
            return false
        }
        guard let chunk = PosixSocket.receive(socket) else { return false }
        buffer.append(contentsOf: chunk)
        return true
    }

    private static func endOfHead(in bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for index in 0...(bytes.count - 4)
        where bytes[index] == 13 && bytes[index + 1] == 10 && bytes[index + 2] == 13 && bytes[index + 3] == 10 {
            return index
        }
        return nil
    }
}
