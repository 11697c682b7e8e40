import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A TCP listener on 127.0.0.1 that answers every connection with a fixed plain-text reply the
/// moment it connects, then closes it: what a TLS client sees when it reaches a server that
/// does not speak TLS.
package final class PlainTextListener: Sendable {
    package let port: UInt16
    private let descriptor: Int32

    package init(reply: String = "HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n") throws {
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
        Thread.detachNewThread {
            while true {
                let connection = accept(listener, nil, nil)
                if connection < 0, errno == EINTR || errno == ECONNABORTED { continue }
                // Shut down by `stop()`: this thread closes it, so no accept ever runs on a
                // descriptor number another test has been given since.
                guard connection >= 0 else {
                    close(listener)
                    return
                }
                _ = bytes.withUnsafeBytes { send(connection, $0.baseAddress, $0.count, 0) }
                close(connection)
            }
        }
    }

    /// Stops accepting: the accept loop ends when the descriptor is shut down, and closes it.
    package func stop() {
        shutdown(descriptor, Int32(SHUT_RDWR))
    }
}
