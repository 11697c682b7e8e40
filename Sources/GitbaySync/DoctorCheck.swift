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
    /// The fix as text output prints it, when it holds a command with outside text made safe
    /// for a terminal before it was quoted (escaped after, the quoting would break); nil: the
    /// fix, escaped.
    var shownFix: String?

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

    /// `OK   name  subject: detail` (`WARN`, `FAIL`; `name: detail` with no subject), and an indented `fix:` line for a
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
        let about = subject.isEmpty ? "" : "  \(escaped: subject)"
        let head = "\(style.paint(label, colour))\(padding)  \(name)\(about): \(escaped: detail)"
        guard let fix else { return [head] }
        return [head, shownFix.map { "      fix: \($0)" } ?? "      fix: \(escaped: fix)"]
    }
}

/// What `doctor` prints: the database it looked at, once; the failures, then the warnings,
/// each with its fix; the checks that passed folded into one line (listed with `-v`); then
/// how many failed. Wrapped at the terminal's width with a hanging indent.
struct DoctorOutput: CommandOutput {
    let checks: [DoctorCheck]
    var style: TextStyle = .plain
    /// The database path, said once at the top; a check about it is shown without it.
    var databasePath: String? = nil
    /// Whether the checks that passed are listed one by one (`-v`).
    var verbose = false
    /// The terminal's width, to wrap to (nil: whole lines).
    var width: Int? = nil

    var json: JSONValue { .object([("ok", .bool(checks.allSatisfy(\.ok))), ("checks", .array(checks.map(\.json)))]) }

    var text: [String] {
        let failed = checks.filter { !$0.ok }.count
        let warnings = checks.filter { $0.level == .warning }.count
        let noted = warnings == 0 ? "" : ", \(warnings) with a warning"
        let shown = checks.map { check in
            guard let databasePath, check.subject == databasePath else { return check }
            return DoctorCheck(name: check.name, subject: "", level: check.level, detail: check.detail, fix: check.fix)
        }
        let passed = shown.filter { $0.level == .ok }
        var lines = databasePath.map { ["database: \(escaped: $0)"] } ?? []
        lines += shown.filter { $0.level == .fail }.flatMap { $0.lines(style: style) }
        lines += shown.filter { $0.level == .warning }.flatMap { $0.lines(style: style) }
        if verbose || passed.count == 1 {
            lines += passed.flatMap { $0.lines(style: style) }
        } else if !passed.isEmpty {
            lines.append("\(style.paint("OK", .green))    \(passed.count) checks passed (`gitbay-sync doctor -v` lists them)")
        }
        lines.append(failed == 0 ? "All \(checks.count) checks passed\(noted)." : "\(failed) of \(checks.count) checks failed\(noted).")
        return TextLayout.fitted(lines, width: width)
    }
}
