import GitbayReconcile
import GitbaySupport

/// The text form of outcomes and conditions.
enum OutcomeText {
    /// The way out for a shadowed `account`, in one clause: `login` has said the rest once.
    static func shadowed(_ account: String) -> String {
        "`\(ShellWords.gitbaySync("prefer", TerminalText.escaped(account)))` moves the token to it"
    }

    /// What it means that `account` is shadowed by `holder` on `instance`, in full: said once,
    /// when the account signs in.
    static func shadowedInFull(_ account: String, holder: String, instance: String) -> String {
        let (name, holder) = (TerminalText.escaped(account), TerminalText.escaped(holder))
        return
            "\(holder) already holds this device's token on \(instance). A gitbay server keeps one row per device token, so one account of an instance holds it at a time: \(name) is shadowed, and this device gets no pushes for it while \(holder) holds the token. \(shadowed(account).prefix(1).uppercased() + shadowed(account).dropFirst())."
    }

    /// An outcome's line: the account's name padded to `width`, what the run did and why;
    /// the requests and writes it took with `counts` (`-v`).
    static func line(_ outcome: SaidOutcome, width: Int, counts: Bool = false) -> String {
        let account = TerminalText.escaped(outcome.account)
        let name = account + String(repeating: " ", count: max(0, width - account.count))
        var line = "\(name)  \(outcome.action.rawValue)"
        if let id = outcome.deviceID { line += ", device \(id)" }
        if let holder = outcome.shadowedBy {
            line += " by \(escaped: holder): \(OutcomeText.shadowed(outcome.account))"
        }
        if outcome.action == .removed && outcome.condition == .removing {
            line += " (signed out: API token and records deleted)"
        } else if outcome.action == .unchanged || outcome.action == .removed || outcome.action == .skipped {
            // A condition that only repeats the action (`paused (paused)`) is not said twice.
            if outcome.condition.rawValue != outcome.action.rawValue { line += " (\(outcome.condition.rawValue))" }
        }
        if let reason = outcome.reason {
            line += ": \(reason)"
        } else if outcome.condition == .noDeviceToken {
            line += ": set the device token with `gitbay-sync device set-token`"
        }
        if counts {
            line += " [\(outcome.requests) request\(outcome.requests == 1 ? "" : "s"), \(outcome.writes) write\(outcome.writes == 1 ? "" : "s")]"
        }
        return line
    }
}

extension CommandRunner {
    /// An outcome's line as this command prints it: its counts under `-v`, wrapped to the
    /// terminal's width, with its journal priority under systemd.
    func outcomeLine(_ outcome: SaidOutcome, width: Int) -> String {
        Self.outcomeLine(outcome, width: width, counts: global.verbosity > 0, fit: textWidth, journal: journalOut)
    }

    static func outcomeLine(_ outcome: SaidOutcome, width: Int, counts: Bool, fit: Int?, journal: JournalText) -> String {
        let text = TextLayout.fitted([OutcomeText.line(outcome, width: width, counts: counts)], width: fit).joined(separator: "\n")
        return journal.line(JournalText.priority(of: outcome), text)
    }
}
