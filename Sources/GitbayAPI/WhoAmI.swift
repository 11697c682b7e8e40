/// The answer to `whoami`: whose token this is. (`key_scope` is not read: over the API it
/// always says `full`.)
package struct WhoAmI: Sendable, Equatable, Decodable {
    /// The canonical user name.
    package let username: String
    package let admin: Bool

    package init(username: String, admin: Bool) {
        self.username = username
        self.admin = admin
    }
}
