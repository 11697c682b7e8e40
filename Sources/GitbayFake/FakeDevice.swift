import Foundation

/// One row of the fake server's device table, as the server stores it (the token in full).
public struct FakeDevice: Sendable, Equatable {
    public let id: Int
    public let owner: String
    public let label: String
    public let token: String
    /// First registration time, whole milliseconds (what `device list` shows); a re-add keeps it.
    public let added: Date

    public init(id: Int, owner: String, label: String, token: String, added: Date) {
        self.id = id
        self.owner = owner
        self.label = label
        self.token = token
        self.added = added
    }
}
