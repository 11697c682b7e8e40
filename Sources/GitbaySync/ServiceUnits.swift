import GitbaySupport

/// The files `service install` writes, as pure text: systemd user units on Linux, a launchd
/// agent on macOS. Nothing here touches the disk.
struct ServiceUnits: Sendable, Equatable {
    /// Which service manager the files are for.
    enum Platform: String, Sendable {
        case systemd
        case launchd

        /// The manager of the system this binary was built for.
        static var current: Platform {
            #if os(macOS)
            .launchd
            #else
            .systemd
            #endif
        }
    }

    /// One file: its name inside the unit folder and its contents.
    struct File: Sendable, Equatable {
        let name: String
        let contents: String
    }

    static let serviceName = "gitbay-sync.service"
    static let timerName = "gitbay-sync.timer"
    static let launchdLabel = "org.gitbay.gitbay-sync"
    static let defaultInterval: Duration = .seconds(15 * 60)
    /// The template unit the service names in `OnFailure=`, for the user to provide: systemd
    /// starts `gitbay-sync-failure@gitbay-sync.service.service` after a failed run, and only
    /// logs it when there is no such unit.
    static let failureTemplate = "gitbay-sync-failure@%n.service"
    /// What every generated file says near its top; a file without it was written by hand.
    static let header = "Written by `gitbay-sync service install`"

    let platform: Platform
    let files: [File]

    /// The units calling `executable` (an absolute path) as `run --unattended --db
    /// databasePath` (absolute too), with `XDG_CONFIG_HOME` set to `configHome` so the run
    /// finds the pre-remove hook the installing shell would, every `interval`; without `notify`,
    /// with `--no-notify` too. `logPath` is where launchd sends stderr.
    init(
        platform: Platform, executable: String, databasePath: String, configHome: String, interval: Duration, logPath: String,
        notify: Bool = true
    ) {
        self.platform = platform
        let arguments = [executable, "run", "--unattended"] + (notify ? [] : ["--no-notify"]) + ["--db", databasePath]
        let environment = [("XDG_CONFIG_HOME", configHome)]
        switch platform {
        case .systemd:
            files = [
                File(name: Self.serviceName, contents: Self.systemdService(arguments, environment: environment)),
                File(name: Self.timerName, contents: Self.systemdTimer(interval)),
            ]
        case .launchd:
            files = [
                File(
                    name: Self.launchdLabel + ".plist",
                    contents: Self.launchdAgent(arguments, environment: environment, interval: interval, logPath: logPath)
                )
            ]
        }
    }

    /// The names of the files for `platform`, and for systemd the target each one's
    /// `systemctl enable` link goes under.
    static func fileNames(_ platform: Platform) -> [(name: String, wantedBy: String?)] {
        switch platform {
        case .systemd: [(serviceName, "default.target"), (timerName, "timers.target")]
        case .launchd: [(launchdLabel + ".plist", nil)]
        }
    }

    /// Whether `contents` is a file `service install` wrote: it carries the header near its top.
    static func isGenerated(_ contents: String) -> Bool {
        contents.split(separator: "\n", maxSplits: 4, omittingEmptySubsequences: false).prefix(4).contains { $0.contains(header) }
    }

    /// What to run after installing, in a shell.
    var enableCommand: String { Self.enableCommand(platform) }

    static func enableCommand(_ platform: Platform) -> String {
        switch platform {
        case .systemd:
            "systemctl --user daemon-reload && systemctl --user enable --now \(timerName) \(serviceName)"
        case .launchd:
            "launchctl bootstrap gui/$(id -u) ~/Library/LaunchAgents/\(launchdLabel).plist"
        }
    }

    // MARK: systemd

    private static func systemdService(_ arguments: [String], environment: [(String, String)]) -> String {
        let assignments = environment.map { "Environment=" + systemdQuoted("\($0)=\($1)", program: true) }
        return """
            # \(header); `gitbay-sync service uninstall` removes it.
            [Unit]
            Description=Keep this device's gitbay push registration true
            # After a failed run: a template unit of yours, if you write one (none is only logged).
            OnFailure=\(failureTemplate)

            [Service]
            Type=oneshot
            # The installing shell's config folder: the pre-remove hook is in gitbay-sync/hooks/ there.
            \(assignments.joined(separator: "\n"))
            # Exits 1 when an account failed: the journal names it, and a later run retries it.
            # Accounts waiting out a backoff are left alone; a missing database exits 66.
            ExecStart=\(arguments.enumerated().map { systemdQuoted($1, program: $0 == 0) }.joined(separator: " "))

            [Install]
            # Runs once at login; gitbay-sync.timer runs it again every period.
            WantedBy=default.target

            """
    }

    private static func systemdTimer(_ interval: Duration) -> String {
        let period = IntervalParser.format(interval)
        // A tenth of the period, so devices started together do not call a server in step.
        let tenth = max(1, interval.components.seconds / 10)
        let spread = IntervalParser.format(.seconds(tenth))
        // systemd wakes a timer within a minute of its time by default, which a short period
        // would feel: no later than its spread, and never more than that minute.
        let accuracy = IntervalParser.format(.seconds(min(tenth, 60)))
        return """
            # \(header); `gitbay-sync service uninstall` removes it.
            [Unit]
            Description=Run gitbay-sync every \(period)

            [Timer]
            OnActiveSec=\(period)
            OnUnitActiveSec=\(period)
            RandomizedDelaySec=\(spread)
            AccuracySec=\(accuracy)
            Unit=\(serviceName)

            [Install]
            WantedBy=timers.target

            """
    }

    /// One word of a systemd command line: double-quoted, with `\` and `"` escaped, control
    /// characters as C escapes, `%` doubled (specifiers) and, except in the program's path
    /// (which systemd never expands variables in), `$` doubled.
    static func systemdQuoted(_ word: String, program: Bool = false) -> String {
        var quoted = "\""
        for scalar in word.unicodeScalars {
            switch scalar {
            case "\\": quoted += "\\\\"
            case "\"": quoted += "\\\""
            case "%": quoted += "%%"
            case "$" where !program: quoted += "$$"
            case "\n": quoted += "\\n"
            case "\t": quoted += "\\t"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F:
                let hex = String(scalar.value, radix: 16)
                quoted += "\\x" + String(repeating: "0", count: 2 - hex.count) + hex
            default: quoted.unicodeScalars.append(scalar)
            }
        }
        return quoted + "\""
    }

    // MARK: launchd

    private static func launchdAgent(_ arguments: [String], environment: [(String, String)], interval: Duration, logPath: String) -> String {
        let argumentLines = arguments.map { "\t\t<string>\(xmlEscaped($0))</string>" }.joined(separator: "\n")
        let environmentLines = environment.map { "\t\t<key>\(xmlEscaped($0))</key>\n\t\t<string>\(xmlEscaped($1))</string>" }.joined(separator: "\n")
        return """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <!-- \(header); `gitbay-sync service uninstall` removes it. -->
            <plist version="1.0">
            <dict>
            \t<key>Label</key>
            \t<string>\(launchdLabel)</string>
            \t<key>ProgramArguments</key>
            \t<array>
            \(argumentLines)
            \t</array>
            \t<key>EnvironmentVariables</key>
            \t<dict>
            \(environmentLines)
            \t</dict>
            \t<key>RunAtLoad</key>
            \t<true/>
            \t<key>StartInterval</key>
            \t<integer>\(interval.components.seconds)</integer>
            \t<key>ProcessType</key>
            \t<string>Background</string>
            \t<key>StandardErrorPath</key>
            \t<string>\(xmlEscaped(logPath))</string>
            </dict>
            </plist>

            """
    }

    static func xmlEscaped(_ text: String) -> String {
        var escaped = ""
        for character in text {
            switch character {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            default: escaped.append(character)
            }
        }
        return escaped
    }
}
