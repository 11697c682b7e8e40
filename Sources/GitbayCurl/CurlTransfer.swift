import GitbaySupport
import Synchronization

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

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
    /// The names of the header fields to keep, in any case; nil keeps every one.
    private let keptNames: Set<String>?

    init(maxResponseBytes: Int, keeping names: Set<String>? = nil) {
        self.maxResponseBytes = maxResponseBytes
        keptNames = names
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
        // Works on bytes: as a Character, "\r\n" is one grapheme, and names are ASCII.
        var end = bytes.count
        while end > 0, bytes[end - 1] == UInt8(ascii: "\r") || bytes[end - 1] == UInt8(ascii: "\n") { end -= 1 }
        let line = UnsafeRawBufferPointer(rebasing: bytes[..<end])
        if Self.startsWithHTTP(line) {
            headers = [:]
            return
        }
        guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else { return }
        let field = Self.trimmed(line[..<colon])
        guard !field.isEmpty, keptNames.map({ Self.holds($0, field) }) ?? true else { return }
        let key = String(decoding: field.map(Self.lowercased), as: UTF8.self)
        let value = String(decoding: Self.trimmed(line[(colon + 1)...]), as: UTF8.self)
        if let existing = headers[key] {
            headers[key] = existing + ", " + value
        } else {
            headers[key] = value
        }
    }

    /// Whether `names` holds the field name `field`, both compared in lower case: without a
    /// copy of either, since most of a response's fields are not kept.
    private static func holds(_ names: Set<String>, _ field: Slice<UnsafeRawBufferPointer>) -> Bool {
        names.contains { name in
            guard name.utf8.count == field.count else { return false }
            // A native name's bytes where they lie: a walk of its UTF-8 view costs several times more.
            return name.utf8.withContiguousStorageIfAvailable { stored in
                zip(stored, field).allSatisfy { lowercased($0) == lowercased($1) }
            } ?? zip(name.utf8, field).allSatisfy { lowercased($0) == lowercased($1) }
        }
    }

    /// Whether `line` is a status line (`HTTP/…`), byte by byte.
    private static func startsWithHTTP(_ line: UnsafeRawBufferPointer) -> Bool {
        line.count >= 5 && line[0] == UInt8(ascii: "H") && line[1] == UInt8(ascii: "T") && line[2] == UInt8(ascii: "T")
            && line[3] == UInt8(ascii: "P") && line[4] == UInt8(ascii: "/")
    }

    /// An ASCII letter in lower case; any other byte as it is.
    private static func lowercased(_ byte: UInt8) -> UInt8 {
        (0x41...0x5A).contains(byte) ? byte + 0x20 : byte
    }

    /// The bytes without the spaces and tabs around them (HTTP's optional whitespace).
    private static func trimmed(_ bytes: Slice<UnsafeRawBufferPointer>) -> Slice<UnsafeRawBufferPointer> {
        let isBlank = { (byte: UInt8) in byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
        guard let first = bytes.firstIndex(where: { !isBlank($0) }), let last = bytes.lastIndex(where: { !isBlank($0) }) else {
            return bytes[bytes.startIndex..<bytes.startIndex]
        }
        return bytes[first...last]
    }
}
