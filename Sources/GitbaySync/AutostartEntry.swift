/// The XDG autostart entry `service install --autostart` writes, as pure text: for a desktop
/// session with no systemd user manager, the session starts `gitbay-sync run --every` at login
/// and it runs as long as the session does. Nothing here touches the disk.
struct AutostartEntry: Sendable, Equatable {
    static let fileName = "gitbay-sync.desktop"

    let file: ServiceUnits.File

    /// The entry running `executable` as `run --every interval --db databasePath` (both
    /// paths absolute; without `notify`, with `--no-notify` too); nil when a path holds a
    /// control character, which an entry's `Exec=` cannot carry.
    init?(executable: String, databasePath: String, interval: Duration, notify: Bool = true) {
        let arguments =
            [executable, "run", "--every", IntervalParser.format(interval)] + (notify ? [] : ["--no-notify"]) + ["--db", databasePath]
        var words: [String] = []
        for argument in arguments {
            guard let word = Self.quoted(argument) else { return nil }
            words.append(word)
        }
        file = ServiceUnits.File(
            name: Self.fileName,
            contents: """
                # \(ServiceUnits.header); `gitbay-sync service uninstall` removes it.
                [Desktop Entry]
                Type=Application
                Name=gitbay-sync
                Comment=Keep this device's gitbay push registration true, while this session lasts
                Exec=\(words.joined(separator: " "))
                Terminal=false
                NoDisplay=true
                X-GNOME-Autostart-enabled=true

                """)
    }

    /// The folder the session reads entries from: `$XDG_CONFIG_HOME/autostart` (else
    /// `~/.config/autostart`).
    static func folder(environment: [String: String]) -> UnitFolder {
        UnitFolder(path: CommandRunner.configHome(environment: environment) + "/autostart")
    }

    /// One argument of `Exec=`, double-quoted as the Desktop Entry Specification says: `"`,
    /// `` ` ``, `$` and `\` escaped by a backslash, which the value's own escaping doubles
    /// (so `\` is written `\\\\`), and `%` doubled (field codes). Nil for a control character.
    static func quoted(_ word: String) -> String? {
        var quoted = "\""
        for scalar in word.unicodeScalars {
            switch scalar {
            case "\"", "`", "$": quoted += "\\\\" + String(scalar)
            case "\\": quoted += "\\\\\\\\"
            case "%": quoted += "%%"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F: return nil
            default: quoted.unicodeScalars.append(scalar)
            }
        }
        return quoted + "\""
    }
}
