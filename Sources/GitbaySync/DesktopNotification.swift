import GitbayReconcile
import GitbayState
import GitbaySupport

/// The desktop notification an unattended run raises for an account it found newly in a
/// condition that waits for the user (`needsAttention`): its summary and body, naming the
/// account and the fix. Values only; `CommandRunner.raiseNotifications` shows them.
struct DesktopNotification: Sendable, Equatable {
    /// What the run read of an account before its pass.
    struct Before: Sendable, Equatable {
        let condition: AccountCondition
        /// Why the runs before could not check it, and in how many in a row.
        var unchecked: Unchecked? = nil
    }

    /// The variable that names the notify-send program, a command line.
    static let variable = "GITBAY_SYNC_NOTIFY"

    let account: String
    let summary: String
    let body: String

    /// The outcomes whose account this pass left in a condition that needs the user and that
    /// differs from the one it read before the pass: a new failure. One that stays failed is
    /// not new on the next run; one that recovered (or was signed in again) and fails anew is.
    static func newFailures(before: [Int64: Before], _ outcomes: [AccountOutcome]) -> [AccountOutcome] {
        outcomes.filter { outcome in
            guard !outcome.stopped else { return false }
            // Once, when the same cause has kept it unchecked for a second run in a row.
            if let reason = outcome.unchecked, let earlier = before[outcome.accountID]?.unchecked {
                return earlier.reason == reason && earlier.runs == 1
            }
            return outcome.condition.needsAttention && before[outcome.accountID]?.condition != outcome.condition
        }
    }

    /// The notification for `outcome`'s account: one short sentence and one command, the
    /// `status` that says the rest (the sign-in command, over the account's SSH destination).
    init(_ outcome: AccountOutcome) {
        account = outcome.account
        summary = "gitbay-sync: \(outcome.account) needs you"
        let (what, then): (String, String) =
            if outcome.unchecked != nil {
                ("two runs in a row could not check it", "says why")
            } else {
                switch outcome.condition {
                case .authFailed: ("its API token was refused", "says how to sign in again")
                case .denied: ("its API token may not register devices", "says how to sign in again")
                case .pushDisabled: ("its instance sends no pushes", "says more")
                default: (outcome.condition.rawValue, "says more")
                }
            }
        body = "\(outcome.account): \(what); `gitbay-sync status` \(then)."
    }

    /// Whether `environment` belongs to a desktop session that can show a notification: on
    /// Linux, one of `DISPLAY`, `WAYLAND_DISPLAY` or `DBUS_SESSION_BUS_ADDRESS` is set; a
    /// launchd agent always runs in the user's GUI session.
    static func hasDesktop(_ platform: ServiceUnits.Platform, environment: [String: String]) -> Bool {
        switch platform {
        case .systemd: ["DISPLAY", "WAYLAND_DISPLAY", "DBUS_SESSION_BUS_ADDRESS"].contains { !(environment[$0] ?? "").isEmpty }
        case .launchd: true
        }
    }

    /// The program that shows it on `platform`, and the variable that may name another.
    static func program(_ platform: ServiceUnits.Platform) -> (name: String, variable: String?) {
        switch platform {
        case .systemd: ("notify-send", variable)
        case .launchd: ("osascript", nil)
        }
    }

    /// The words after the program's: notify-send's summary and body (its body takes markup,
    /// so `&`, `<` and `>` are escaped), or the AppleScript that osascript runs (not built or
    /// run here: macOS builds are not compiled in this project's CI).
    func arguments(_ platform: ServiceUnits.Platform) -> [String] {
        switch platform {
        case .systemd:
            // `--` first: a summary is an account name, and one starting with `-` is still text.
            return ["--app-name=gitbay-sync", "--", summary, Self.markupEscaped(body)]
        case .launchd:
            return ["-e", "display notification \(Self.appleScriptQuoted(body)) with title \(Self.appleScriptQuoted(summary))"]
        }
    }

    /// An AppleScript string literal: in double quotes, with `\` and `"` escaped.
    static func appleScriptQuoted(_ text: String) -> String {
        var quoted = "\""
        for character in text {
            if character == "\\" || character == "\"" { quoted.append("\\") }
            quoted.append(character)
        }
        return quoted + "\""
    }

    private static func markupEscaped(_ text: String) -> String {
        var escaped = ""
        for character in text {
            switch character {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            default: escaped.append(character)
            }
        }
        return escaped
    }
}
