import FoundationEssentials
import GitbaySupport

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
        var output = ""
        write(to: &output)
        return output
    }

    private func write(to output: inout String) {
        switch self {
        case .null: output += "null"
        case .bool(let value): output += value ? "true" : "false"
        case .int(let value): output += String(value)
        case .string(let value): Self.writeString(value, to: &output)
        case .array(let values):
            output += "["
            for (index, value) in values.enumerated() {
                if index > 0 { output += "," }
                value.write(to: &output)
            }
            output += "]"
        case .object(let members):
            output += "{"
            for (index, (key, value)) in members.enumerated() {
                if index > 0 { output += "," }
                Self.writeString(key, to: &output)
                output += ":"
                value.write(to: &output)
            }
            output += "}"
        }
    }

    private static func writeString(_ value: String, to output: inout String) {
        output += "\""
        // Runs of characters that need no escape are copied whole.
        var plain = value.utf8.startIndex
        for index in value.utf8.indices {
            let byte = value.utf8[index]
            guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
            output += Substring(value.utf8[plain..<index])
            switch byte {
            case UInt8(ascii: "\""): output += "\\\""
            case UInt8(ascii: "\\"): output += "\\\\"
            case UInt8(ascii: "\n"): output += "\\n"
            case UInt8(ascii: "\r"): output += "\\r"
            case UInt8(ascii: "\t"): output += "\\t"
            default:
                let hex = String(byte, radix: 16)
                output += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            }
            plain = value.utf8.index(after: index)
        }
        output += Substring(value.utf8[plain...])
        output += "\""
    }
}
