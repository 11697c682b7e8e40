import GitbaySupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A JSON value whose objects keep their keys in the order given, so `--json` output has one
/// stable, documented shape.
package enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case int(Int)
    case string(String)
    case array([JSONValue])
    case object([(String, JSONValue)])

    package static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        lhs.rendered() == rhs.rendered()
    }

    static func optional(_ text: String?) -> JSONValue { text.map(JSONValue.string) ?? .null }
    static func optional(_ number: Int?) -> JSONValue { number.map(JSONValue.int) ?? .null }
    static func optional(_ date: Date?) -> JSONValue { date.map { .string(Timestamp.format($0)) } ?? .null }

    /// Compact JSON text on one line.
    package func rendered() -> String {
        var output = JSONBytes()
        write(to: &output)
        return output.text()
    }

    func write(to output: inout JSONBytes) {
        switch self {
        case .null: output.append("null")
        case .bool(let value): output.append(value ? "true" : "false")
        case .int(let value): output.append(value)
        case .string(let value): Self.writeString(value, to: &output)
        // Elements through the array's buffer: each is written where it lies, not copied out
        // first (a copy of a value counts a reference for each string in it, and again when it goes).
        case .array(let values):
            output.append(UInt8(ascii: "["))
            values.withUnsafeBufferPointer { values in
                for index in values.indices {
                    if index > 0 { output.append(UInt8(ascii: ",")) }
                    values[index].write(to: &output)
                }
            }
            output.append(UInt8(ascii: "]"))
        case .object(let members):
            output.append(UInt8(ascii: "{"))
            members.withUnsafeBufferPointer { members in
                for index in members.indices {
                    if index > 0 { output.append(UInt8(ascii: ",")) }
                    Self.writeString(members[index].0, to: &output)
                    output.append(UInt8(ascii: ":"))
                    members[index].1.write(to: &output)
                }
            }
            output.append(UInt8(ascii: "}"))
        }
    }

    static func writeString(_ value: String, to output: inout JSONBytes) {
        // A native string's bytes are read where they lie; another (bridged) is copied first.
        if value.utf8.withContiguousStorageIfAvailable({ output.appendString($0) }) != nil { return }
        var text = value
        text.withUTF8 { output.appendString($0) }
    }
}

/// The bytes of JSON text as it is written: one buffer grown by doubling, appended to without
/// the checks an array makes on every append (its uniqueness, its capacity by element). A run's
/// `--json` writes some twenty values per account.
struct JSONBytes: ~Copyable {
    private var start: UnsafeMutablePointer<UInt8>
    private var count = 0
    private var capacity: Int

    init(capacity: Int = 1024) {
        self.capacity = max(capacity, 16)
        start = .allocate(capacity: self.capacity)
    }

    deinit { start.deallocate() }

    private mutating func reserve(_ more: Int) {
        guard count + more > capacity else { return }
        let larger = max(capacity * 2, count + more)
        let moved = UnsafeMutablePointer<UInt8>.allocate(capacity: larger)
        moved.update(from: start, count: count)
        start.deallocate()
        (start, capacity) = (moved, larger)
    }

    mutating func append(_ byte: UInt8) {
        reserve(1)
        start[count] = byte
        count += 1
    }

    mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
        reserve(bytes.count)
        (start + count).update(from: base, count: bytes.count)
        count += bytes.count
    }

    mutating func append(_ literal: StaticString) {
        literal.withUTF8Buffer { append($0) }
    }

    /// `bytes` (UTF-8) as a JSON string: quoted, with quotes, backslashes and control
    /// characters escaped. Runs of bytes that need no escape are copied whole.
    mutating func appendString(_ bytes: UnsafeBufferPointer<UInt8>) {
        // Most strings need no escape: room made once, then the quotes and the bytes written.
        if let base = bytes.baseAddress, !bytes.contains(where: Self.needsEscape) {
            reserve(bytes.count + 2)
            start[count] = UInt8(ascii: "\"")
            (start + count + 1).update(from: base, count: bytes.count)
            start[count + 1 + bytes.count] = UInt8(ascii: "\"")
            count += bytes.count + 2
            return
        }
        append(UInt8(ascii: "\""))
        var plain = 0
        for index in bytes.indices {
            let byte = bytes[index]
            guard Self.needsEscape(byte) else { continue }
            append(UnsafeBufferPointer(rebasing: bytes[plain..<index]))
            switch byte {
            case UInt8(ascii: "\""): append(#"\""#)
            case UInt8(ascii: "\\"): append(#"\\"#)
            case UInt8(ascii: "\n"): append(#"\n"#)
            case UInt8(ascii: "\r"): append(#"\r"#)
            case UInt8(ascii: "\t"): append(#"\t"#)
            default:
                let hex = Array("0123456789abcdef".utf8)
                append(#"\u00"#)
                append(hex[Int(byte >> 4)])
                append(hex[Int(byte & 0xF)])
            }
            plain = index + 1
        }
        append(UnsafeBufferPointer(rebasing: bytes[plain...]))
        append(UInt8(ascii: "\""))
    }

    private static func needsEscape(_ byte: UInt8) -> Bool {
        byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\")
    }

    /// The digits of `number`, with its sign.
    mutating func append(_ number: Int) {
        var magnitude = number.magnitude
        var length = number < 0 ? 2 : 1
        while magnitude >= 10 {
            magnitude /= 10
            length += 1
        }
        reserve(length)
        if number < 0 { start[count] = UInt8(ascii: "-") }
        magnitude = number.magnitude
        var at = count + length
        repeat {
            at -= 1
            start[at] = UInt8(ascii: "0") + UInt8(magnitude % 10)
            magnitude /= 10
        } while magnitude > 0
        count += length
    }

    /// The text written, as a string (valid UTF-8: only whole strings and ASCII are written).
    func text() -> String {
        String(unsafeUninitializedCapacity: count) { (buffer: UnsafeMutableBufferPointer<UInt8>) in
            buffer.baseAddress?.initialize(from: start, count: count)
            return count
        }
    }
}
