/// The answer to `notifications device add`.
package struct DeviceAddResult: Sendable, Equatable, Decodable {
    /// The device row's id; nil from a v1.32.0 server, which returns none (find the row by
    /// token prefix in `device list`).
    package let id: Int?

    package init(id: Int?) {
        self.id = id
    }
}
