/// The gitbay commands the fake instance implements, found by their leading argv words.
enum GitbayCommand: CaseIterable, Sendable {
    case whoami
    case deviceAdd
    case deviceList
    case deviceRemove
    case settingsShow
    case settingsPush
    case tokenCreate
    case tokenList
    case tokenRevoke

    var words: [String] {
        switch self {
        case .whoami: ["whoami"]
        case .deviceAdd: ["notifications", "device", "add"]
        case .deviceList: ["notifications", "device", "list"]
        case .deviceRemove: ["notifications", "device", "remove"]
        case .settingsShow: ["notifications", "settings", "show"]
        case .settingsPush: ["notifications", "settings", "push"]
        case .tokenCreate: ["token", "create"]
        case .tokenList: ["token", "list"]
        case .tokenRevoke: ["token", "revoke"]
        }
    }

    /// Commands that change state: POST only, `full` tokens only, counted as writes.
    var changesState: Bool {
        switch self {
        case .whoami, .deviceList, .settingsShow, .tokenList: false
        case .deviceAdd, .deviceRemove, .settingsPush, .tokenCreate, .tokenRevoke: true
        }
    }

    /// The `--flag value` pairs the command takes; any other flag is a usage error.
    var flags: Set<String> {
        switch self {
        case .deviceAdd: ["--label"]
        case .tokenCreate: ["--name", "--scope", "--ttl"]
        default: []
        }
    }

    var name: String { words.joined(separator: " ") }

    /// The command `argv` (already without `--json`) names, and the arguments after its words.
    static func parse(_ argv: [String]) -> (command: GitbayCommand, arguments: [String])? {
        for command in allCases where argv.starts(with: command.words) {
            return (command, Array(argv.dropFirst(command.words.count)))
        }
        return nil
    }
}
