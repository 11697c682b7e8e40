#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The process's standard streams, through their file descriptors.
enum StandardStreams {
    /// Writes all of `text` to `descriptor`, going on after short writes and interruptions;
    /// returns the reason when the rest cannot be written (a full disk, a closed pipe).
    @discardableResult
    static func send(_ text: String, to descriptor: Int32) -> String? {
        let bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress! + offset, $0.count - offset) }
            if written > 0 {
                offset += written
            } else if written < 0 && errno == EINTR {
                continue
            } else {
                return written < 0 ? "\(String(cString: strerror(errno))) (errno \(errno))" : "nothing was written"
            }
        }
        return nil
    }

    /// Reads `descriptor` to its end, or returns nil as soon as it has read more than `limit`
    /// bytes: an endless stream costs `limit + 1` bytes of memory and is left unread.
    static func readAll(_ descriptor: Int32, limit: Int) -> [UInt8]? {
        var result: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: min(4096, limit + 1))
        while result.count <= limit {
            let wanted = min(chunk.count, limit + 1 - result.count)
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, wanted) }
            if count > 0 {
                result += chunk[..<count]
            } else if count < 0 && errno == EINTR {
                continue
            } else {
                return result
            }
        }
        return nil
    }

    /// Reads one line from `descriptor` (a terminal) without its line break, or returns nil as
    /// soon as the line holds more than `limit` bytes. A terminal hands over a line at a time,
    /// so nothing after the line break is read.
    static func readLine(_ descriptor: Int32, limit: Int) -> [UInt8]? {
        var line: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: min(4096, limit + 1))
        while line.count <= limit {
            let wanted = min(chunk.count, limit + 1 - line.count)
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, wanted) }
            if count > 0 {
                if let end = chunk[..<count].firstIndex(of: UInt8(ascii: "\n")) {
                    line += chunk[..<end]
                    return line.count <= limit ? line : nil
                }
                line += chunk[..<count]
            } else if count < 0 && errno == EINTR {
                continue
            } else {
                return line
            }
        }
        return nil
    }
}
