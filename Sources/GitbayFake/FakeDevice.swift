import Foundation

/// One row of the fake server's device table, as the server stores it (the token in full).
public struct FakeDevice: Sendable, Equatable {
    public let id: Int
    public let owner: String
    public let label: String
    public let token: String
    /// First registration time, whole milliseconds (what `device list` shows); a re-add keeps it.
    public let added: Date
    /// The API bearer token whose `device add` created this row; nil for a row made by
    /// `FakeGitbayServer.insertDevice(owner:token:label:)`, which stands for another client.
    /// A re-add or a move keeps it: the row is still the same row.
    public let insertedWith: String?

    public init(id: Int, owner: String, label: String, token: String, added: Date, insertedWith: String? = nil) {
        self.id = id
        self.owner = owner
        self.label = label
        self.token = token
        self.added = added
        self.insertedWith = insertedWith
    }
}
