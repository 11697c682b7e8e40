/// One finding of `doctor`: what was checked, for what, whether it passed, and the fix.
struct DoctorCheck: Sendable, Equatable {
    /// A stable dotted name, e.g. `database.integrity`, `account.token`.
    let name: String
    /// What it was checked for: the database path, `device`, or an account's name.
    let subject: String
    let ok: Bool
    let detail: String
    /// What to do about a failure; nil when the check passed.
    let fix: String?

    static func pass(_ name: String, _ subject: String, _ detail: String) -> DoctorCheck {
        DoctorCheck(name: name, subject: subject, ok: true, detail: detail, fix: nil)
    }

    static func fail(_ name: String, _ subject: String, _ detail: String, fix: String) -> DoctorCheck {
        DoctorCheck(name: name, subject: subject, ok: false, detail: detail, fix: fix)
    }

    var json: JSONValue {
        .object([
            ("name", .string(name)),
            ("subject", .string(subject)),
            ("ok", .bool(ok)),
            ("detail", .string(detail)),
            ("fix", .optional(fix)),
        ])
    }

    /// `OK   name  subject: detail`, and an indented `fix:` line for a failure. Subject,
    /// detail and fix carry outside text (an account's name, a server's answer, a path) and
    /// are printed escaped.
    var lines: [String] {
        let head = "\(ok ? "OK  " : "FAIL")  \(name)  \(escaped: subject): \(escaped: detail)"
        return fix.map { [head, "      fix: \(escaped: $0)"] } ?? [head]
    }
}
