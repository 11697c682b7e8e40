import GitbayReconcile
import GitbaySupport

/// The text form of outcomes and conditions.
enum OutcomeText {
    /// What it means that `account` is shadowed, and the way out.
    static func shadowed(_ account: String) -> String {
        let name = TerminalText.escaped(account)
        return "so this device gets no pushes for \(name); `\(ShellWords.gitbaySync("prefer", name))` moves the token to it"
    }

    static func line(_ outcome: SaidOutcome, width: Int) -> String {
        let account = TerminalText.escaped(outcome.account)
        let name = account + String(repeating: " ", count: max(0, width - account.count))
        var line = "\(name)  \(outcome.action.rawValue)"
        if let id = outcome.deviceID { line += ", device \(id)" }
        if let holder = outcome.shadowedBy {
            line += " by \(escaped: holder) (the server gives a device token to one account of an instance, \(OutcomeText.shadowed(outcome.account)))"
        }
        if outcome.action == .removed && outcome.condition == .removing {
            line += " (signed out: API token and records deleted)"
        } else if outcome.action == .unchanged || outcome.action == .removed || outcome.action == .skipped {
            line += " (\(outcome.condition.rawValue))"
        }
        if let reason = outcome.reason {
            line += ": \(reason)"
        } else if outcome.condition == .noDeviceToken {
            line += ": set the device token with `gitbay-sync device set-token`"
        }
        line += " [\(outcome.requests) request\(outcome.requests == 1 ? "" : "s"), \(outcome.writes) write\(outcome.writes == 1 ? "" : "s")]"
        return line
    }
}
