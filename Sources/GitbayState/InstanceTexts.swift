import GitbaySupport

/// The instance URLs of the rows one read meets, each distinct text parsed once and found again
/// by its bytes as SQLite holds them: many accounts share a few instances, and making a string
/// of every row's text to look it up cost more than comparing bytes with the few known.
struct InstanceTexts {
    private var known: [(text: [UInt8], instance: InstanceURL)] = []
    /// Past `linearLimit` distinct texts, the rest are looked up by string.
    private var more: [String: InstanceURL] = [:]
    private static let linearLimit = 32

    /// The instance stored as `text`; a stored text that no longer parses is a broken invariant
    /// (only a parsed URL's description is ever written).
    mutating func instance(_ text: UnsafeBufferPointer<UInt8>) -> InstanceURL {
        for entry in known where Self.same(entry.text, text) { return entry.instance }
        let string = String(decoding: text, as: UTF8.self)
        if let instance = more[string] { return instance }
        guard let instance = try? InstanceURL(parsing: string) else { preconditionFailure("stored instance URL does not parse: \(string)") }
        if known.count < Self.linearLimit { known.append((Array(text), instance)) } else { more[string] = instance }
        return instance
    }

    /// Byte for byte, from the end: the instances of one machine tend to differ in their port.
    private static func same(_ known: [UInt8], _ text: UnsafeBufferPointer<UInt8>) -> Bool {
        guard known.count == text.count else { return false }
        return known.withUnsafeBufferPointer { known in
            var index = known.count
            while index > 0 {
                index -= 1
                if known[index] != text[index] { return false }
            }
            return true
        }
    }
}
