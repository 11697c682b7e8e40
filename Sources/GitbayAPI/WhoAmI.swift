/// The answer to `whoami`: whose token this is. Its other fields are not read: `admin` decides
/// nothing here, and `key_scope` always says `full` over the API.
package struct WhoAmI: Sendable, Equatable, Decodable {
    /// The canonical user name.
    package let username: String

    package init(username: String) {
        self.username = username
    }
}
