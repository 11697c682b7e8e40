import GitbayState
import GitbaySupport

/// How the command line names an account: `user@host` or `user@host:port` as `accounts` shows
/// it (the host in any case, a name holding a backslash or a control character escaped as it is
/// shown, or not), or the user name alone when only one account has it.
enum AccountName {
    /// `name` with its host part lower-cased, as accounts are stored; the user name is taken as
    /// given.
    static func normalised(_ name: String) -> String {
        guard let at = name.lastIndex(of: "@") else { return name }
        return String(name[..<at]) + name[at...].lowercased()
    }

    /// The account among `accounts` that `name` names; else the failure that says why none is
    /// (exit 67): a user name that several accounts have, naming them, or an unknown name,
    /// naming the signed-in accounts and the nearest.
    static func find(_ name: String, among accounts: [AccountRecord]) throws(CommandFailure) -> AccountRecord {
        let normalised = normalised(name)
        if let account = accounts.first(where: { $0.name == normalised }) { return account }
        // As every command prints a stored name that holds a backslash or a control character:
        // escaped (`TerminalText`), which reads back as one name only, and is pasted so.
        if let account = accounts.first(where: { TerminalText.escaped($0.name) == normalised }) { return account }
        if !name.contains("@") {
            let same = accounts.filter { $0.username == name }
            if same.count == 1 { return same[0] }
            if same.count > 1 {
                let names = same.map(\.name).joined(separator: ", ")
                throw CommandFailure("'\(name)' names \(same.count) accounts: \(names); give one of them in full", exitCode: .noSuchAccount)
            }
        }
        let names = accounts.map(\.name)
        let known =
            names.isEmpty
            ? "no account is signed in; sign in with `gitbay-sync login <instance-url>`"
            : "signed in: \(names.joined(separator: ", "))"
        let hint = NearMiss.suggestion(for: name, among: names).map { " Did you mean '\($0)'?" } ?? ""
        throw CommandFailure("no account '\(name)' (\(known)).\(hint)", exitCode: .noSuchAccount)
    }
}
