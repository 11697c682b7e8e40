/// The answer to `notifications device add`.
package struct DeviceAddResult: Sendable, Equatable, Decodable {
    /// The device row's id; nil from a v1.32.0 server, which returns none (find the row by
    /// token prefix in `device list`).
    package let id: Int?

    package init(id: Int?) {
        self.id = id
    }

    private enum CodingKeys: String, CodingKey {
        case id
    }

    /// An `id` that is there must be a row id a server can give; anything else is a malformed answer.
    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decodeIfPresent(Int.self, forKey: .id).map { try ServerDevice.rowID($0, at: container.codingPath + [CodingKeys.id]) }
    }
}
