import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A port on 127.0.0.1 that refuses connections for as long as this value lives: bound, so
/// that no other test's server is handed it, but never listening. (A stopped server's port
/// is not such a port: the next server to ask for a free one may get it at once.)
package final class ClosedPort: Sendable {
    package let port: UInt16
    private let descriptor: Int32

    package init() throws {
        let socketDescriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socketDescriptor >= 0 else { throw POSIXError(.EMFILE) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socketDescriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(socketDescriptor, $0, &length) }
        }
        guard bound == 0, named == 0 else {
            close(socketDescriptor)
            throw POSIXError(.EADDRINUSE)
        }
        descriptor = socketDescriptor
        port = UInt16(bigEndian: address.sin_port)
    }

    deinit {
        close(descriptor)
    }
}
