/// One finding of `doctor`: what was checked, for what, whether it passed, and the fix.
struct DoctorCheck: Sendable, Equatable {
    /// How a check came out. A warning passes: it names something worth knowing (a service
    /// that is not installed, for someone who runs gitbay-sync by hand) and what to do if it
    /// is not meant.
    enum Level: String, Sendable {
        case ok
        case warning
        case fail
    }

    /// A stable dotted name, e.g. `database.integrity`, `account.token`.
    let name: String
    /// What it was checked for: the database path, `device`, an account's name, a unit file.
    let subject: String
    let level: Level
    let detail: String
    /// What to do about a failure or a warning; nil when the check passed outright.
    let fix: String?

    /// False only for a failure: a warning passes.
    var ok: Bool { level != .fail }

    static func pass(_ name: String, _ subject: String, _ detail: String) -> DoctorCheck {
        DoctorCheck(name: name, subject: subject, level: .ok, detail: detail, fix: nil)
    }

    static func warn(_ name: String, _ subject: String, _ detail: String, fix: String) -> DoctorCheck {
        DoctorCheck(name: name, subject: subject, level: .warning, detail: detail, fix: fix)
    }

    static func fail(_ name: String, _ subject: String, _ detail: String, fix: String) -> DoctorCheck {
        DoctorCheck(name: name, subject: subject, level: .fail, detail: detail, fix: fix)
    }

    var json: JSONValue {
        .object([
            ("name", .string(name)),
            ("subject", .string(subject)),
            ("ok", .bool(ok)),
            ("detail", .string(detail)),
            ("fix", .optional(fix)),
            ("level", .string(level.rawValue)),
        ])
    }

    /// `OK   name  subject: detail` (`WARN`, `FAIL`), and an indented `fix:` line for a
    /// warning or a failure. Subject, detail and fix carry outside text (an account's name, a
    /// server's answer, a path) and are printed escaped.
    /// The label is coloured in `style` (OK green, WARN yellow, FAIL red), after its padding.
    func lines(style: TextStyle = .plain) -> [String] {
        let (label, colour): (String, TextStyle.Colour) =
            switch level {
            case .ok: ("OK", .green)
            case .warning: ("WARN", .yellow)
            case .fail: ("FAIL", .red)
            }
        let padding = String(repeating: " ", count: 4 - label.count)
        let head = "\(style.paint(label, colour))\(padding)  \(name)  \(escaped: subject): \(escaped: detail)"
        return fix.map { [head, "      fix: \(escaped: $0)"] } ?? [head]
    }
}

/// What `doctor` prints: every check, then how many failed.
struct DoctorOutput: CommandOutput {
    let checks: [DoctorCheck]
    var style: TextStyle = .plain

    var json: JSONValue { .object([("ok", .bool(checks.allSatisfy(\.ok))), ("checks", .array(checks.map(\.json)))]) }

    var text: [String] {
        let failed = checks.filter { !$0.ok }.count
        let warnings = checks.filter { $0.level == .warning }.count
        let noted = warnings == 0 ? "" : ", \(warnings) with a warning"
        return checks.flatMap { $0.lines(style: style) } + [
            failed == 0 ? "All \(checks.count) checks passed\(noted)." : "\(failed) of \(checks.count) checks failed\(noted)."
        ]
    }
}
