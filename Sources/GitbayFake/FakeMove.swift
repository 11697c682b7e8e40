/// A device row that a `device add` of its token moved to another account (same id, same
/// `added`): the upsert is keyed on the token alone.
public struct FakeMove: Sendable, Equatable {
    /// The row's id, which the move keeps.
    public let id: Int
    /// The account that owned the row before.
    public let from: String
    /// The account that owns it now.
    public let to: String
    /// The API bearer token of the `device add` that moved it; nil for
    /// `FakeGitbayServer.insertDevice(owner:token:label:)`.
    public let byAPIToken: String?

    public init(id: Int, from: String, to: String, byAPIToken: String?) {
        self.id = id
        self.from = from
        self.to = to
        self.byAPIToken = byAPIToken
    }
}
