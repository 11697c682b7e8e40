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
}

/// The answer to `notifications device list`.
package enum DeviceList: Sendable, Equatable {
    /// `304`: unchanged since the list with the given ETag.
    case notModified
    /// The rows in id order, and the ETag to send next time (nil when the server sent none).
    case list([ServerDevice], etag: String?)
}
