/// What `service install --enable` asks the service manager, in order, once the units are
/// written: for systemd, reload the user units, enable the service (a run at login), enable
/// and start the timer, then ask whether the timer is active; for launchd, take out an agent
/// loaded before, load the new one, then ask for it. Values only: the command line runs them.
struct ServiceActivation: Sendable, Equatable {
    /// One call of the manager's program.
    struct Step: Sendable, Equatable {
        /// The words after the program's own.
        let arguments: [String]
        /// A failure here is expected and passed over (an agent not loaded yet to take out).
        var mayFail = false
        /// The last step: it says whether what was enabled is running.
        var isCheck = false
    }

    /// The variable that names the systemctl program, a command line.
    static let systemctlVariable = "GITBAY_SYNC_SYSTEMCTL"

    /// The program's name on `PATH`, and the variable that may name another.
    let program: String
    let variable: String?
    let steps: [Step]

    /// The steps for `platform`; `userID` and `plistPath` are launchd's.
    init(_ platform: ServiceUnits.Platform, userID: UInt32, plistPath: String) {
        switch platform {
        case .systemd:
            program = "systemctl"
            variable = Self.systemctlVariable
            steps = [
                Step(arguments: ["--user", "daemon-reload"]),
                Step(arguments: ["--user", "enable", ServiceUnits.serviceName]),
                Step(arguments: ["--user", "enable", "--now", ServiceUnits.timerName]),
                Step(arguments: ["--user", "is-active", ServiceUnits.timerName], isCheck: true),
            ]
        case .launchd:
            // Not built or run here: macOS builds are not compiled in this project's CI.
            let domain = "gui/\(userID)"
            program = "launchctl"
            variable = nil
            steps = [
                Step(arguments: ["bootout", domain + "/" + ServiceUnits.launchdLabel], mayFail: true),
                Step(arguments: ["bootstrap", domain, plistPath]),
                Step(arguments: ["print", domain + "/" + ServiceUnits.launchdLabel], isCheck: true),
            ]
        }
    }

    private init(program: String, variable: String?, steps: [Step]) {
        self.program = program
        self.variable = variable
        self.steps = steps
    }

    /// `service install` without `--enable`: the user manager reads the units afresh, so a
    /// timer already running takes a new period at once. A manager that cannot be reached is
    /// no failure here.
    static func reload(_ platform: ServiceUnits.Platform) -> ServiceActivation? {
        guard platform == .systemd else { return nil }
        return ServiceActivation(program: "systemctl", variable: systemctlVariable, steps: [Step(arguments: ["--user", "daemon-reload"])])
    }

    /// `service uninstall`, before the files go: stop and disable what `--enable` enabled
    /// (the timer first, so it starts no run meanwhile), or take the launchd agent out.
    static func stop(_ platform: ServiceUnits.Platform, userID: UInt32) -> ServiceActivation {
        switch platform {
        case .systemd:
            ServiceActivation(
                program: "systemctl", variable: systemctlVariable,
                steps: [Step(arguments: ["--user", "disable", "--now", ServiceUnits.timerName, ServiceUnits.serviceName])])
        case .launchd:
            ServiceActivation(
                program: "launchctl", variable: nil,
                steps: [Step(arguments: ["bootout", "gui/\(userID)/" + ServiceUnits.launchdLabel], mayFail: true)])
        }
    }

    /// `service uninstall`, once the files are gone: the manager forgets the units, and a
    /// failed run's state with them, so nothing of gitbay-sync stays loaded.
    static func forget(_ platform: ServiceUnits.Platform) -> ServiceActivation? {
        guard platform == .systemd else { return nil }
        return ServiceActivation(
            program: "systemctl", variable: systemctlVariable,
            steps: [
                Step(arguments: ["--user", "daemon-reload"]),
                Step(arguments: ["--user", "reset-failed", ServiceUnits.serviceName, ServiceUnits.timerName], mayFail: true),
            ])
    }

    /// How the steps went.
    enum Outcome: Sendable, Equatable {
        /// Every step went through, and the check says it runs.
        case active
        /// The program cannot be found (or its variable read).
        case noProgram(NamedProgram.Failure)
        /// systemctl could not reach a user manager (no user session bus on this host).
        case noUserManager(step: [String], detail: String)
        /// A step failed with this status and error output, or could not be started (`status` nil).
        case failed(step: [String], status: Int32?, detail: String)
        /// Everything was asked and done, but the check says it is not running.
        case notActive(detail: String)
    }

    /// What a step's ending means: nil to go on to the next step.
    func outcome(of step: Step, status: Int32, output: String) -> Outcome? {
        guard status != 0, !step.mayFail else { return nil }
        let detail = Self.firstLine(output)
        if program == "systemctl", Self.noUserManager(output) {
            return .noUserManager(step: step.arguments, detail: detail)
        }
        return step.isCheck ? .notActive(detail: detail) : .failed(step: step.arguments, status: status, detail: detail)
    }

    /// What systemctl says when there is no user manager to talk to: "Failed to connect to bus:
    /// No medium found", "Failed to connect to user scope bus via local transport: …".
    static func noUserManager(_ output: String) -> Bool {
        output.contains("Failed to connect to") || output.contains("$DBUS_SESSION_BUS_ADDRESS and $XDG_RUNTIME_DIR not defined")
    }

    /// The first line of what a program wrote that says anything, trimmed.
    static func firstLine(_ output: String) -> String {
        let lines = output.split(whereSeparator: \.isNewline).map { String($0).trimmingSpaces }
        return lines.first { !$0.isEmpty } ?? ""
    }
}

extension String {
    /// Without spaces and tabs at either end.
    fileprivate var trimmingSpaces: String {
        var text = Substring(self)
        while let first = text.first, first == " " || first == "\t" { text.removeFirst() }
        while let last = text.last, last == " " || last == "\t" { text.removeLast() }
        return String(text)
    }
}
