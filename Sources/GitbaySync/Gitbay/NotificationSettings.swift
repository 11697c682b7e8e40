/// An account's notification settings, from `notifications settings show`. Keys this version
/// does not know (`reply` on later servers) are ignored.
public struct NotificationSettings: Sendable, Equatable, Decodable {
    public let mail: Bool
    public let watch: Bool
    /// Off: the devices stay registered but nothing is sent.
    public let push: Bool

    public init(mail: Bool, watch: Bool, push: Bool) {
        self.mail = mail
        self.watch = watch
        self.push = push
    }
}
