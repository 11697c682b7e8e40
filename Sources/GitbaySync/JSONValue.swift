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
        // Built as UTF-8 bytes: appending to a String piece by piece costs several times more.
        var output: [UInt8] = []
        write(to: &output)
        return String(decoding: output, as: UTF8.self)
    }

    private func write(to output: inout [UInt8]) {
        switch self {
        case .null: output += "null".utf8
        case .bool(let value): output += (value ? "true" : "false").utf8
        case .int(let value): output += String(value).utf8
        case .string(let value): Self.writeString(value, to: &output)
        // Elements by index: each is written where it lies, not copied out first (a copy of a
        // value counts a reference for each string in it, and again when it goes).
        case .array(let values):
            output.append(UInt8(ascii: "["))
            for index in values.indices {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                values[index].write(to: &output)
            }
            output.append(UInt8(ascii: "]"))
        case .object(let members):
            output.append(UInt8(ascii: "{"))
            for index in members.indices {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                Self.writeString(members[index].0, to: &output)
                output.append(UInt8(ascii: ":"))
                members[index].1.write(to: &output)
            }
            output.append(UInt8(ascii: "}"))
        }
    }

    private static func writeString(_ value: String, to output: inout [UInt8]) {
        output.append(UInt8(ascii: "\""))
        var text = value
        text.withUTF8 { bytes in
            // Runs of bytes that need no escape are copied whole.
            var plain = 0
            for index in bytes.indices {
                let byte = bytes[index]
                guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
                output += UnsafeBufferPointer(rebasing: bytes[plain..<index])
                switch byte {
                case UInt8(ascii: "\""): output += #"\""#.utf8
                case UInt8(ascii: "\\"): output += #"\\"#.utf8
                case UInt8(ascii: "\n"): output += #"\n"#.utf8
                case UInt8(ascii: "\r"): output += #"\r"#.utf8
                case UInt8(ascii: "\t"): output += #"\t"#.utf8
                default:
                    let hex = String(byte, radix: 16)
                    output += ("\\u" + String(repeating: "0", count: 4 - hex.count) + hex).utf8
                }
                plain = index + 1
            }
            output += UnsafeBufferPointer(rebasing: bytes[plain...])
        }
        output.append(UInt8(ascii: "\""))
    }
}
