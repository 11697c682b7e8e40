/// Where an object's members go as a value describes them: into a `JSONValue` to render later,
/// or straight into the text (`JSONObjectBytes`), so that a long list of objects (`run --json`,
/// one for each account) makes no tree of values first. One description, two destinations.
protocol JSONMembers: ~Copyable {
    mutating func member(_ key: String, _ value: String?)
    mutating func member(_ key: String, _ value: Int?)
    mutating func member(_ key: String, _ value: Bool)
    mutating func member(_ key: String, _ values: [String])
}

/// The members as a `JSONValue` object.
struct JSONObjectTree: JSONMembers {
    private(set) var members: [(String, JSONValue)] = []

    var value: JSONValue { .object(members) }

    mutating func member(_ key: String, _ value: String?) { members.append((key, .optional(value))) }
    mutating func member(_ key: String, _ value: Int?) { members.append((key, .optional(value))) }
    mutating func member(_ key: String, _ value: Bool) { members.append((key, .bool(value))) }
    mutating func member(_ key: String, _ values: [String]) { members.append((key, .array(values.map(JSONValue.string)))) }
}

/// The members written as JSON text into `bytes`, between `begin()` and `end()`: the same text
/// `JSONObjectTree`'s value renders to.
struct JSONObjectBytes: ~Copyable, JSONMembers {
    var bytes: JSONBytes
    private var first = true

    init(_ bytes: consuming JSONBytes) {
        self.bytes = bytes
    }

    mutating func begin() {
        bytes.append(UInt8(ascii: "{"))
        first = true
    }

    mutating func end() {
        bytes.append(UInt8(ascii: "}"))
    }

    private mutating func key(_ key: String) {
        if !first { bytes.append(UInt8(ascii: ",")) }
        first = false
        JSONValue.writeString(key, to: &bytes)
        bytes.append(UInt8(ascii: ":"))
    }

    mutating func member(_ key: String, _ value: String?) {
        self.key(key)
        if let value { JSONValue.writeString(value, to: &bytes) } else { bytes.append("null") }
    }

    mutating func member(_ key: String, _ value: Int?) {
        self.key(key)
        if let value { bytes.append(value) } else { bytes.append("null") }
    }

    mutating func member(_ key: String, _ value: Bool) {
        self.key(key)
        bytes.append(value ? "true" : "false")
    }

    mutating func member(_ key: String, _ values: [String]) {
        self.key(key)
        bytes.append(UInt8(ascii: "["))
        for (index, value) in values.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            JSONValue.writeString(value, to: &bytes)
        }
        bytes.append(UInt8(ascii: "]"))
    }

    /// `elements` as an array of objects, each described by `describe`.
    mutating func member<Element>(_ key: String, objects elements: [Element], _ describe: (Element, inout JSONObjectBytes) -> Void) {
        self.key(key)
        bytes.append(UInt8(ascii: "["))
        for index in elements.indices {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            begin()
            describe(elements[index], &self)
            end()
        }
        bytes.append(UInt8(ascii: "]"))
        first = false
    }

    /// The text written.
    func text() -> String { bytes.text() }
}
