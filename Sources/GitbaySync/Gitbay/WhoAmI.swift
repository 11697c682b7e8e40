/// The answer to `whoami`: whose token this is. (`key_scope` is not read: over the API it
/// always says `full`.)
public struct WhoAmI: Sendable, Equatable, Decodable {
    /// The canonical user name.
    public let username: String
    public let admin: Bool

    public init(username: String, admin: Bool) {
        self.username = username
        self.admin = admin
    }
}
