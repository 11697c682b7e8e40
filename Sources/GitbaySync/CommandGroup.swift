/// The groups the commands are listed in, in this order, by `--help`, the man page and the zsh
/// completion. Each command's spec names its group.
enum CommandGroup: String, CaseIterable, Sendable {
    case accounts = "Accounts"
    case thisDevice = "This device"
    case running = "Running"
    case lookingAround = "Looking around"
    case pushSwitch = "The server's push switch"
    case shellAndReference = "Shell and reference"

    /// The heading the group is listed under.
    var title: String { rawValue }

    /// The group's name as one lower-case word, for a zsh completion tag: `this-device`.
    var tag: String {
        String(title.lowercased().filter { $0.isLetter || $0 == " " }.map { $0 == " " ? "-" : $0 })
    }
}
