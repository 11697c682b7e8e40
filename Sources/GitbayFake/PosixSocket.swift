#if canImport(Darwin)
import Darwin
#else
import Glibc
#endif

/// The handful of POSIX socket calls the server makes, with the Linux/Darwin differences
/// kept in one place. Descriptors are plain `Int32`s owned by whoever received them.
enum PosixSocket {
    /// A listening TCP socket on 127.0.0.1 (never any other address) and the port it got.
    static func listen(port: UInt16) throws(FakeServerError) -> (socket: Int32, port: UInt16) {
        #if canImport(Darwin)
        let fd = socket(AF_INET, SOCK_STREAM, 0)
        #else
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #endif
        guard fd >= 0 else { throw FakeServerError(call: "socket", code: errno, port: port) }
        do throws(FakeServerError) {
            // Lets a test stop a server and start another on the same port at once, even while
            // connections of the first one sit in TIME_WAIT.
            var yes: Int32 = 1
            _ = setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
            try bindLoopback(fd, port: port)
            #if canImport(Darwin)
            let listening = Darwin.listen(fd, 128)
            #else
            let listening = Glibc.listen(fd, 128)
            #endif
            guard listening == 0 else { throw FakeServerError(call: "listen", code: errno, port: port) }
            let bound = try boundPort(of: fd, requested: port)
            // Non-blocking, so a client that vanishes between poll and accept cannot stall the loop.
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            return (fd, bound)
        } catch {
            close(fd)
            throw error
        }
    }

    /// Binds `fd` to 127.0.0.1 and `port`.
    private static func bindLoopback(_ fd: Int32, port: UInt16) throws(FakeServerError) {
        var address = sockaddr_in()
        #if canImport(Darwin)
        address.sin_len = UInt8(MemoryLayout<sockaddr_in>.size)
        #endif
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr = in_addr(s_addr: UInt32(0x7F00_0001).bigEndian)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0 else { throw FakeServerError(call: "bind", code: errno, port: port) }
    }

    /// The port `fd` is bound to; `requested` (0 for any) names it in an error.
    private static func boundPort(of fd: Int32, requested: UInt16) throws(FakeServerError) -> UInt16 {
        var address = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard named == 0 else { throw FakeServerError(call: "getsockname", code: errno, port: requested) }
        return UInt16(bigEndian: address.sin_port)
    }

    /// Accepts one connection, as a blocking socket; nil if none was pending.
    static func accept(from listener: Int32) -> Int32? {
        #if canImport(Darwin)
        let fd = Darwin.accept(listener, nil, nil)
        #else
        let fd = Glibc.accept(listener, nil, nil)
        #endif
        guard fd >= 0 else { return nil }
        // Darwin hands down the listener's O_NONBLOCK; reads here block (inside poll) on purpose.
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
        #if canImport(Darwin)
        var yes: Int32 = 1
        _ = setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &yes, socklen_t(MemoryLayout<Int32>.size))
        #endif
        return fd
    }

    /// Waits until one of `sockets` is readable (or hung up); returns which, or nil on timeout.
    /// A negative `milliseconds` waits forever.
    static func waitReadable(_ sockets: [Int32], milliseconds: Int32) -> [Bool]? {
        var entries = sockets.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
        while true {
            let count = poll(&entries, nfds_t(entries.count), milliseconds)
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { return nil }
            return entries.map { $0.revents != 0 }
        }
    }

    /// A blocking TCP socket connected to 127.0.0.1:`port`; nil when nothing accepts there.
    static func connectLoopback(port: UInt16) -> Int32? {
        #if canImport(Darwin)
        let fd = socket(AF_INET, SOCK_STREAM, 0)
        #else
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #endif
        guard fd >= 0 else { return nil }
        var address = sockaddr_in()
        #if canImport(Darwin)
        address.sin_len = UInt8(MemoryLayout<sockaddr_in>.size)
        #endif
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr = in_addr(s_addr: UInt32(0x7F00_0001).bigEndian)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            close(fd)
            return nil
        }
        return fd
    }

    /// Reads what is available, up to `capacity` bytes; nil at end of stream or on error.
    static func receive(_ socket: Int32, capacity: Int = 64 * 1024) -> [UInt8]? {
        var chunk = [UInt8](repeating: 0, count: capacity)
        while true {
            let count = chunk.withUnsafeMutableBytes { recv(socket, $0.baseAddress, capacity, 0) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return nil }
            return Array(chunk.prefix(count))
        }
    }

    /// Writes all of `bytes`; false if the peer is gone.
    static func sendAll(_ socket: Int32, _ bytes: [UInt8]) -> Bool {
        #if canImport(Darwin)
        let flags: Int32 = 0
        #else
        let flags = Int32(MSG_NOSIGNAL)
        #endif
        var offset = 0
        while offset < bytes.count {
            let count = bytes.withUnsafeBytes {
                send(socket, $0.baseAddress! + offset, bytes.count - offset, flags)
            }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return false }
            offset += count
        }
        return true
    }

    /// Makes the next `close` send a TCP RST instead of a FIN: the client sees a reset.
    static func resetOnClose(_ socket: Int32) {
        var option = linger(l_onoff: 1, l_linger: 0)
        _ = setsockopt(socket, SOL_SOCKET, SO_LINGER, &option, socklen_t(MemoryLayout<linger>.size))
    }

    /// Ends both directions, waking a thread blocked in `send` or `recv` on it.
    static func shutDown(_ socket: Int32) {
        _ = shutdown(socket, Int32(SHUT_RDWR))
    }
}
