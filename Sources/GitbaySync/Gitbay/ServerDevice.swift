/// A row of `notifications device list`, as the server shows it.
public struct ServerDevice: Sendable, Equatable {
    public let id: Int
    public let label: String
    /// Truncated by the server: the first 8 bytes and `…`, or `(short token)`.
    public let token: String
    public let added: String

    public init(id: Int, label: String, token: String, added: String) {
        self.id = id
        self.label = label
        self.token = token
        self.added = added
    }
}
