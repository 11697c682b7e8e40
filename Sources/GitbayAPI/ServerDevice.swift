/// One row of `notifications device list`, as the server shows it.
package struct ServerDevice: Sendable, Equatable, Decodable {
    package let id: Int
    package let label: String
    /// The token as shown: its first 8 bytes and `…`, or `(short token)`.
    package let token: String
    /// The first registration time, e.g. `2026-09-20T14:03:07.123Z`.
    package let added: String

    package init(id: Int, label: String, token: String, added: String) {
        self.id = id
        self.label = label
        self.token = token
        self.added = added
    }

    private enum CodingKeys: String, CodingKey {
        case id, label, token, added
    }

    /// Reads a row; an `id` that is not a whole number from 1 to `Int.max` (a row id, which
    /// `device remove` takes back) makes the answer malformed, as a fraction or 1e30 already does.
    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try Self.rowID(try container.decode(Int.self, forKey: .id), at: container.codingPath + [CodingKeys.id])
        label = try container.decode(String.self, forKey: .label)
        token = try container.decode(String.self, forKey: .token)
        added = try container.decode(String.self, forKey: .added)
    }

    /// `id` when it can name a row: SQLite's row ids, which gitbay's are, start at 1.
    static func rowID(_ id: Int, at path: [any CodingKey]) throws -> Int {
        guard id >= 1 else {
            throw DecodingError.dataCorrupted(.init(codingPath: path, debugDescription: "a device id is a whole number from 1"))
        }
        return id
    }
}

/// The answer to `notifications device list`.
package enum DeviceList: Sendable, Equatable {
    /// `304`: unchanged since the list with the given ETag.
    case notModified
    /// The rows in id order, and the ETag to send next time (nil when the server sent none).
    case list([ServerDevice], etag: String?)
}
