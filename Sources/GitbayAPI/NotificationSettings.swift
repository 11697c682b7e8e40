/// An account's notification settings, from `notifications settings show`. Keys this version
/// does not know (`reply` on later servers) are ignored.
package struct NotificationSettings: Sendable, Equatable, Decodable {
    package let mail: Bool
    package let watch: Bool
    /// Off: the devices stay registered but nothing is sent.
    package let push: Bool

    package init(mail: Bool, watch: Bool, push: Bool) {
        self.mail = mail
        self.watch = watch
        self.push = push
    }
}
