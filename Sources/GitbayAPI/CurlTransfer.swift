import FoundationEssentials
import GitbaySupport
import Synchronization

/// The state of one transfer, shared with curl's callbacks through an `Unmanaged` pointer.
///
/// `@unchecked Sendable` invariant: `body`, `headers` and `exceededLimit` are touched only on the
/// event loop's thread (by curl's callbacks while the transfer runs, then by the code that reads
/// the result once it has ended); `cancelled` may be set from any thread and is a `Mutex`.
final class CurlTransfer: @unchecked Sendable {
    let maxResponseBytes: Int
    private(set) var body: [UInt8] = []
    private(set) var headers: [String: String] = [:]
    /// Set when the body went past `maxResponseBytes` and the write callback aborted.
    private(set) var exceededLimit = false

    private let cancelled = Mutex(false)

    init(maxResponseBytes: Int) {
        self.maxResponseBytes = maxResponseBytes
    }

    /// Asks the transfer to stop; curl notices at its next progress callback.
    func cancel() {
        cancelled.withLock { $0 = true }
    }

    var isCancelled: Bool {
        cancelled.withLock { $0 }
    }

    /// Appends body bytes; false when they would go past the limit.
    func receiveBody(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard body.count + bytes.count <= maxResponseBytes else {
            exceededLimit = true
            return false
        }
        body.append(contentsOf: bytes)
        return true
    }

    /// Records one header line. A status line starts a new header block: a proxy's
    /// `CONNECT` answer comes before the server's.
    func receiveHeaderLine(_ bytes: UnsafeRawBufferPointer) {
        // Drop the line ending as bytes: as a Character, "\r\n" is one grapheme.
        var length = bytes.count
        while length > 0, bytes[length - 1] == UInt8(ascii: "\r") || bytes[length - 1] == UInt8(ascii: "\n") {
            length -= 1
        }
        let line = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[..<length]), as: UTF8.self)
        if line.hasPrefix("HTTP/") {
            headers = [:]
            return
        }
        guard let colon = line.firstIndex(of: ":") else { return }
        let name = line[..<colon].trimmingWhitespace().lowercased()
        let value = line[line.index(after: colon)...].trimmingWhitespace()
        guard !name.isEmpty else { return }
        if let existing = headers[name] {
            headers[name] = existing + ", " + value
        } else {
            headers[name] = value
        }
    }
}
