#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What a child writes on its standard output and error, read from the read ends of two
/// non-blocking pipes as it comes: the output up to its limit (past it, `outputOverflowed`),
/// the error output up to its own limit, the rest of it read and dropped so the child never
/// blocks on a full pipe.
struct OutputReader {
    private let output: Int32
    private let errors: Int32
    private let outputLimit: Int
    private let errorLimit: Int
    private(set) var outputBytes: [UInt8] = []
    private(set) var errorBytes: [UInt8] = []
    private(set) var outputOverflowed = false
    private var outputOpen = true
    private var errorsOpen = true

    init(output: Int32, errors: Int32, outputLimit: Int, errorLimit: Int) {
        self.output = output
        self.errors = errors
        self.outputLimit = outputLimit
        self.errorLimit = errorLimit
    }

    /// Waits up to `milliseconds` for either pipe to hold something, then reads what they hold.
    mutating func wait(milliseconds: Int32) {
        var watched: [pollfd] = []
        if outputOpen { watched.append(pollfd(fd: output, events: Int16(POLLIN), revents: 0)) }
        if errorsOpen { watched.append(pollfd(fd: errors, events: Int16(POLLIN), revents: 0)) }
        if watched.isEmpty {
            usleep(UInt32(milliseconds) * 1000)
            return
        }
        _ = poll(&watched, nfds_t(watched.count), milliseconds)
        drain()
    }

    /// Reads whatever the pipes hold now, without waiting: once the child has ended, a
    /// process it left behind may hold the pipes open, and nothing more is waited for.
    mutating func drain() {
        if outputOpen { outputOpen = readAvailable(output, into: &outputBytes, limit: outputLimit, overflowed: &outputOverflowed) }
        var dropped = false
        if errorsOpen { errorsOpen = readAvailable(errors, into: &errorBytes, limit: errorLimit, overflowed: &dropped) }
    }

    /// Reads until the pipe is empty or at its end; false at its end (or on an error).
    private func readAvailable(_ descriptor: Int32, into bytes: inout [UInt8], limit: Int, overflowed: inout Bool) -> Bool {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count > 0 {
                let room = max(0, limit - bytes.count)
                bytes += buffer.prefix(min(room, count))
                if count > room { overflowed = true }
                continue
            }
            if count < 0 && errno == EINTR { continue }
            return count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)
        }
    }
}
