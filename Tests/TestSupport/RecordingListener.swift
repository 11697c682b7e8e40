import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A TCP listener on 127.0.0.1 that keeps every byte each connection sends (up to 64 KiB, until
/// a blank line ends a request head or a second of quiet), answers a fixed reply and closes:
/// a stand-in proxy that shows what a client would have handed a proxy.
package final class RecordingListener: Sendable {
    package let port: UInt16
    private let descriptor: Int32
    private let received = Mutex<[[UInt8]]>([])

    package init(reply: String = "HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\nConnection: close\r\n\r\n") throws {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard listener >= 0 else { throw POSIXError(.EMFILE) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(listener, 8) == 0 else {
            close(listener)
            throw POSIXError(.EADDRINUSE)
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
        }
        port = UInt16(bigEndian: address.sin_port)
        descriptor = listener
        let bytes = Array(reply.utf8)
        Thread.detachNewThread { [self] in
            while true {
                let connection = accept(listener, nil, nil)
                if connection < 0, errno == EINTR || errno == ECONNABORTED { continue }
                // Shut down by `stop()`: this thread closes it, so no accept ever runs on a
                // descriptor number another test has been given since.
                guard connection >= 0 else {
                    close(listener)
                    return
                }
                let head = Self.readHead(connection)
                received.withLock { $0.append(head) }
                _ = bytes.withUnsafeBytes { send(connection, $0.baseAddress, $0.count, 0) }
                close(connection)
            }
        }
    }

    /// `http://127.0.0.1:<port>`, for a proxy variable.
    package var url: String { "http://127.0.0.1:\(port)" }

    /// What each connection sent, in order of arrival.
    package var connections: [String] {
        received.withLock { $0.map { String(decoding: $0, as: UTF8.self) } }
    }

    /// Stops accepting: the accept loop ends when the descriptor is shut down, and closes it.
    package func stop() {
        shutdown(descriptor, Int32(SHUT_RDWR))
    }

    private static func readHead(_ connection: Int32) -> [UInt8] {
        var limit = timeval(tv_sec: 1, tv_usec: 0)
        _ = setsockopt(connection, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        var head: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while head.count < 65536 {
            let count = buffer.withUnsafeMutableBytes { recv(connection, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { break }
            head += buffer[..<count]
            if head.count >= 4, Array(head.suffix(4)) == Array("\r\n\r\n".utf8) { break }
        }
        return head
    }
}
